import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { withCustomPlans } from "./prepared";
import { statementRows } from "./statement-rows";

describe.each(testDatabases())("plans made for each run's values on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  const planCacheMode = async (db: typeof handle.db) =>
    statementRows<{ mode: string }>(await db.execute(sql`select current_setting('plan_cache_mode') as mode`))[0]?.mode;

  it("hold for the reads inside withCustomPlans only", async () => {
    expect(await withCustomPlans(handle.db, (db) => planCacheMode(db))).toBe("force_custom_plan");
    // Every connection of the pool is back to the server's default once the transaction ends.
    const after = await Promise.all(Array.from({ length: 8 }, () => planCacheMode(handle.db)));
    expect(new Set(after)).toEqual(new Set(["auto"]));
  });

  it("refuse writes: the transaction is read-only", async () => {
    await expect(withCustomPlans(handle.db, (db) => db.execute(sql`create temporary table written (id integer)`))).rejects.toMatchObject({
      cause: expect.objectContaining({ code: "25006" }),
    });
  });
});
