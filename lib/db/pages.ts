import "server-only";
import type { PgSelect } from "drizzle-orm/pg-core";

/**
 * One page of a list and how many rows all its pages hold, read side by side: `rows` is the list's query in its order
 * (made `.$dynamic()` so the page's LIMIT and OFFSET can be added here), `counted` a count over the same conditions.
 */
export async function pageWithTotal<Rows extends PgSelect>(
  page: { perPage: number; offset: number },
  rows: Rows,
  counted: PromiseLike<{ total: number }[]>,
): Promise<{ items: Awaited<Rows>; total: number }> {
  const [items, [totals]] = await Promise.all([rows.limit(page.perPage).offset(page.offset), counted]);
  return { items, total: totals?.total ?? 0 };
}
