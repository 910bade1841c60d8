import { and, asc, gt, sql, type SQL } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { cappedCount, cappedCountOfParts, countLimit, keyedListPage, listPage, type KeyedList } from "./pages";
import { users } from "./schema";

describe.each(testDatabases())("list pages and capped counts ($name)", (database) => {
  const handle = databaseForSuite(async () => {
    const opened = await database.open();
    // 10,050 accounts beside whatever the migrations created: more than the count limit.
    await opened.db.execute(sql`insert into users (username, email, name, password_hash)
      select 'page_' || n, 'page_' || n || '@example.com', 'Page ' || n, 'x' from generate_series(1, 10050) n`);
    return opened;
  });
  const paged = (where = sql`${users.username} like 'page\\_%'`) => ({
    rows: handle.db.select({ id: users.id }).from(users).where(where).orderBy(asc(users.id)).$dynamic(),
    matching: handle.db.select({ one: sql`1` }).from(users).where(where).$dynamic(),
  });
  const firstId = async () => (await handle.db.select({ id: users.id }).from(users).where(sql`${users.username} = 'page_1'`))[0]!.id;

  it("counts up to the limit exactly, and says null past it", async () => {
    const start = await firstId();
    const upTo = (count: number) => handle.db.select({ one: sql`1` }).from(users).where(sql`${users.id} between ${start} and ${start + count - 1}`).$dynamic();
    expect(await cappedCount(handle.db, upTo(countLimit))).toBe(10_000);
    expect(await cappedCount(handle.db, upTo(countLimit + 1))).toBeNull();
    expect(await cappedCount(handle.db, upTo(0))).toBe(0);
  });

  it("past the count limit: no total on the first page, but whether a next page follows", async () => {
    const { rows, matching } = paged();
    const first = await listPage(handle.db, { perPage: 20, offset: 0 }, rows, matching);
    expect(first.items).toHaveLength(20);
    expect(first.items[0]!.id).toBe(await firstId());
    expect(first).toMatchObject({ total: null, hasNext: true });
  });

  it("a page that ends the list tells its total without counting; an empty page past the end counts", async () => {
    const { rows, matching } = paged();
    const last = await listPage(handle.db, { perPage: 20, offset: 10_040 }, rows, matching);
    expect(last.items).toHaveLength(10);
    expect(last).toMatchObject({ total: 10_050, hasNext: false });
    const beyond = await listPage(handle.db, { perPage: 20, offset: 20_000 }, rows, matching);
    expect(beyond).toEqual({ items: [], total: null, hasNext: false });
  });

  it("a short list: the total on the first page, exact", async () => {
    const start = await firstId();
    const { rows, matching } = paged(sql`${users.id} between ${start} and ${start + 2}`);
    expect(await listPage(handle.db, { perPage: 20, offset: 0 }, rows, matching)).toEqual({
      items: [{ id: start }, { id: start + 1 }, { id: start + 2 }],
      total: 3,
      hasNext: false,
    });
    const page2 = await listPage(handle.db, { perPage: 2, offset: 2 }, rows, matching);
    expect(page2).toEqual({ items: [{ id: start + 2 }], total: 3, hasNext: false });
  });

  it("a maintained total answers instead of counting, even past the limit; undefined falls back to counting", async () => {
    const { rows, matching } = paged(gt(users.id, 0));
    const maintained = await listPage(handle.db, { perPage: 5, offset: 0 }, rows, matching, { total: async () => 123_456 });
    expect(maintained).toMatchObject({ total: 123_456, hasNext: true });
    const fallback = await listPage(handle.db, { perPage: 5, offset: 0 }, rows, matching, { total: async () => undefined });
    expect(fallback).toMatchObject({ total: null, hasNext: true });
  });

  it("a list in parts: pages merge the parts in order at any offset, and the total sums the parts, capped", async () => {
    const start = await firstId();
    const inRange = (count: number) => sql`${users.id} between ${start} and ${start + count - 1}`;
    // Odd and even ids as two parts: each read in order on its own, the pages must interleave them.
    const list = (count: number): KeyedList<ReturnType<typeof rowsOf>> => ({
      order: [{ value: users.id, descending: true }],
      branches: (keys) => [0, 1].map((remainder) => handle.db.select(keys).from(users).where(and(inRange(count), sql`${users.id} % 2 = ${remainder}`)).$dynamic()),
      rows: (pageKeys, key) => rowsOf(pageKeys, key(0)),
    });
    const rowsOf = (pageKeys: SQL, id: SQL) => handle.db.select({ id: users.id }).from(pageKeys).innerJoin(users, sql`${users.id} = ${id}`).$dynamic();
    const ids = (count: number, from: number, length: number) => Array.from({ length }, (_, index) => start + count - 1 - from - index);

    const small = await keyedListPage(handle.db, { perPage: 4, offset: 0 }, list(7));
    expect(small).toEqual({ items: ids(7, 0, 4).map((id) => ({ id })), total: 7, hasNext: true });
    expect(await keyedListPage(handle.db, { perPage: 4, offset: 4 }, list(7))).toEqual({ items: ids(7, 4, 3).map((id) => ({ id })), total: 7, hasNext: false });
    // 10,050 rows in two parts of about 5,000: each part is under the limit, their sum is not.
    const large = await keyedListPage(handle.db, { perPage: 3, offset: 5_000 }, list(10_050));
    expect(large).toEqual({ items: ids(10_050, 5_000, 3).map((id) => ({ id })), total: null, hasNext: true });
    expect(await cappedCountOfParts(handle.db, list(10_000).branches({ id: sql`${users.id}`.as("id") }))).toBe(10_000);
  });
});
