import "server-only";
import { count, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn, PgSelect, PgTable } from "drizzle-orm/pg-core";
import type { Executor } from "./drivers";

/**
 * GitLab counts a list's rows only this far (Kaminari's `MAX_COUNT_LIMIT`): past it a list answers without `X-Total`,
 * `X-Total-Pages` and `rel="last"`, so no request pays for counting a table it pages through twenty rows at a time.
 */
export const countLimit = 10_000;

/**
 * A page of a list: its items, whether another page follows, and how many items all its pages hold, or null when that
 * is more than `countLimit` (then nobody counted how many more).
 */
export interface ListPage<Item> {
  items: Item[];
  total: number | null;
  hasNext: boolean;
}

/**
 * How many rows `matching` finds, counting no further than `countLimit` (null: more than that), as GitLab counts its
 * lists, so a count costs at most that many rows whatever the table holds.
 */
export async function cappedCount(db: Executor, matching: PgSelect): Promise<number | null> {
  const [row] = await db.select({ total: count() }).from(sql`(${matching.limit(countLimit + 1)}) as matching`);
  const total = row?.total ?? 0;
  return total > countLimit ? null : total;
}

/**
 * One page of a list, GitLab's way: `rows` is the list's query in its order (made `.$dynamic()` so the page's LIMIT and
 * OFFSET can be added here), read one row further to learn whether another page follows; `matching` selects the same
 * rows, unordered, for the total. The total is counted only when the page does not tell it (the first page holds the
 * whole list, or a page ends it), and then no further than `countLimit`. `total` may answer it instead, from a
 * maintained count that is exact for the caller (then even past `countLimit`), or undefined to fall back to counting.
 */
export async function listPage<Rows extends PgSelect>(
  db: Executor,
  page: PagePosition,
  rows: Rows,
  matching: PgSelect,
  options: { total?: () => Promise<number | undefined> } = {},
): Promise<ListPage<Awaited<Rows>[number]>> {
  const fetched = (await rows.limit(page.perPage + 1).offset(page.offset)) as Awaited<Rows>[number][];
  return completePage(page, fetched, async () => (await options.total?.()) ?? (await cappedCount(db, matching)));
}

export interface PagePosition {
  perPage: number;
  offset: number;
}

/** The page from its rows read one further: whether another follows, and the total, counted only when needed. */
async function completePage<Item>(page: PagePosition, fetched: Item[], total: () => Promise<number | null>): Promise<ListPage<Item>> {
  const hasNext = fetched.length > page.perPage;
  const items = hasNext ? fetched.slice(0, page.perPage) : fetched;
  if (!hasNext && (items.length > 0 || page.offset === 0)) return { items, total: page.offset + items.length, hasNext };
  return { items, total: await total(), hasNext };
}

/** One key of a list's order. The last key of an order is unique, so the order is total and pages never overlap. */
export interface OrderKey {
  value: AnyPgColumn | SQL;
  descending: boolean;
  /** Rows without a value sort last whatever the direction (PostgreSQL sorts them first when descending). */
  nullsLast?: boolean;
}

/**
 * A list read as GitLab's lists should be read at any size: first the keys of the page's rows, from indexes alone,
 * then the rows of that page only, so a deep page costs an index scan to its offset rather than reading and joining
 * every row before it.
 *
 * The keys come from `branches`: parts of the list that do not overlap (public projects, internal ones, private
 * ones the caller belongs to), each read in the list's order from an index that serves it and no further than the
 * page needs, then merged. A condition that would be an OR across such parts would make PostgreSQL read and sort the
 * whole table instead; a single part is the common case.
 */
export interface KeyedList<Rows extends PgSelect> {
  order: readonly OrderKey[];
  /** The list's parts, each selecting `keys` (aliased columns of the order's values) and filtering, but not ordered. */
  branches: (keys: Record<string, SQL.Aliased>) => PgSelect[];
  /** The rows of the page, joined to `pageKeys` (a derived table of the page's keys) on `key(i)`, the i-th key. */
  rows: (pageKeys: SQL, key: (index: number) => SQL) => Rows;
}

const keyName = (index: number) => `list_key_${index}`;

function keyColumns(order: readonly OrderKey[]): Record<string, SQL.Aliased> {
  return Object.fromEntries(order.map((key, index) => [keyName(index), sql`${key.value}`.as(keyName(index))]));
}

function orderBy(order: readonly OrderKey[], value: (key: OrderKey, index: number) => SQL): SQL {
  const terms = order.map((key, index) => {
    const direction = key.descending ? sql` desc` : sql` asc`;
    return sql`${value(key, index)}${direction}${key.nullsLast ? sql` nulls last` : sql``}`;
  });
  return sql.join(terms, sql`, `);
}

/** The keys of `limit` rows from `offset` on, merged from every branch, each read no further than that. */
function pageKeysQuery<Rows extends PgSelect>(list: KeyedList<Rows>, limit: number, offset: number): SQL {
  const keys = keyColumns(list.order);
  const branchOrder = orderBy(list.order, (key) => sql`${key.value}`);
  const branches = list.branches(keys).map((branch) => branch.orderBy(branchOrder));
  if (branches.length === 1) return sql`${branches[0]!.limit(limit).offset(offset)}`;
  const merged = sql.join(
    branches.map((branch) => sql`(${branch.limit(offset + limit)})`),
    sql` union all `,
  );
  const mergedOrder = orderBy(list.order, (_, index) => sql`${sql.identifier(keyName(index))}`);
  return sql`select * from (${merged}) as branches order by ${mergedOrder} limit ${limit} offset ${offset}`;
}

/** The items of a page of `list` read one row further, in the list's order. */
async function keyedRows<Rows extends PgSelect>(list: KeyedList<Rows>, limit: number, offset: number): Promise<Awaited<Rows>[number][]> {
  const pageKey = (index: number) => sql`${sql.identifier("page_keys")}.${sql.identifier(keyName(index))}`;
  const rows = list.rows(sql`(${pageKeysQuery(list, limit, offset)}) as ${sql.identifier("page_keys")}`, pageKey);
  return (await rows.orderBy(orderBy(list.order, (_, index) => pageKey(index)))) as Awaited<Rows>[number][];
}

/** `cappedCount` of a list made of parts: each part counted no further than the limit, their sum capped. */
export async function cappedCountOfParts(db: Executor, parts: PgSelect[]): Promise<number | null> {
  if (parts.length === 1) return cappedCount(db, parts[0]!);
  const limited = sql.join(
    parts.map((part) => sql`(${part.limit(countLimit + 1)})`),
    sql` union all `,
  );
  const [row] = await db.select({ total: count() }).from(sql`(${limited}) as matching`);
  const total = row?.total ?? 0;
  return total > countLimit ? null : total;
}

/** `listPage` for a `KeyedList`: its rows by their keys, its total counted over its parts unless `total` tells it. */
export async function keyedListPage<Rows extends PgSelect>(
  db: Executor,
  page: PagePosition,
  list: KeyedList<Rows>,
  options: { total?: () => Promise<number | undefined> } = {},
): Promise<ListPage<Awaited<Rows>[number]>> {
  const fetched = await keyedRows(list, page.perPage + 1, page.offset);
  return completePage(page, fetched, async () => (await options.total?.()) ?? (await cappedCountOfParts(db, list.branches(keyColumns(list.order)))));
}

/** The rows of one table matching `where`, in the order of their ids: a `KeyedList` over its primary key. */
export function rowsById<Table extends PgTable & { id: AnyPgColumn }>(
  db: Executor,
  table: Table,
  where: SQL | undefined,
  descending = false,
): KeyedList<PgSelect & PromiseLike<Table["$inferSelect"][]>> {
  const anyTable: PgTable = table;
  return {
    order: [{ value: table.id, descending }],
    branches: (keys) => [db.select(keys).from(anyTable).where(where).$dynamic()],
    rows: (pageKeys, key) =>
      db.select(getTableColumns(anyTable)).from(pageKeys).innerJoin(anyTable, sql`${table.id} = ${key(0)}`).$dynamic() as PgSelect &
        PromiseLike<Table["$inferSelect"][]>,
  };
}

/** The first `limit` rows of `list` after none (keyset pages: their branches carry the position). */
export async function keyedRowsFrom<Rows extends PgSelect>(list: KeyedList<Rows>, limit: number): Promise<Awaited<Rows>[number][]> {
  return keyedRows(list, limit, 0);
}
