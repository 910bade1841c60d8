import "server-only";
import { count, sql } from "drizzle-orm";
import type { PgSelect } from "drizzle-orm/pg-core";
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
  page: { perPage: number; offset: number },
  rows: Rows,
  matching: PgSelect,
  { total: maintainedTotal }: { total?: () => Promise<number | undefined> } = {},
): Promise<ListPage<Awaited<Rows>[number]>> {
  const fetched = (await rows.limit(page.perPage + 1).offset(page.offset)) as Awaited<Rows>[number][];
  const hasNext = fetched.length > page.perPage;
  const items = hasNext ? fetched.slice(0, page.perPage) : fetched;
  if (!hasNext && (items.length > 0 || page.offset === 0)) return { items, total: page.offset + items.length, hasNext };
  const total = (await maintainedTotal?.()) ?? (await cappedCount(db, matching));
  return { items, total, hasNext };
}
