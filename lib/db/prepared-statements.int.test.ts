import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import type { Executor } from "./drivers";
import { statementRows } from "./statement-rows";

describe.each(testDatabases())("statements prepared once per connection on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  // The driver prepares statements that take values; those without any go by the simple protocol.
  /** Whether this session holds a prepared statement whose text contains `marker` (passed as a value, so the question never matches itself). */
  const preparedHere = async (db: Executor, marker: string) =>
    statementRows<{ found: boolean }>(await db.execute(sql`select exists (select 1 from pg_prepared_statements where strpos(statement, ${marker}) > 0) as found`))[0]
      ?.found;

  it("inside a transaction, as outside one", async () => {
    const found = await handle.db.transaction(async (tx) => {
      await tx.execute(sql`select ${1}::int as marker_in_transaction`);
      return preparedHere(tx, "marker_in_transaction");
    });
    expect(found).toBe(true);
  });

  it("inside a nested transaction (a savepoint)", async () => {
    const found = await handle.db.transaction((tx) =>
      tx.transaction(async (nested) => {
        await nested.execute(sql`select ${1}::int as marker_in_savepoint`);
        return preparedHere(nested, "marker_in_savepoint");
      }),
    );
    expect(found).toBe(true);
  });

  it("and a transaction still rolls back what it wrote when it fails", async () => {
    await handle.db.execute(sql`create table if not exists prepared_rollback_probe (id integer)`);
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into prepared_rollback_probe values (1)`);
        throw new Error("abandoned");
      }),
    ).rejects.toThrow("abandoned");
    const [row] = statementRows<{ rows: number }>(await handle.db.execute(sql`select count(*)::int as rows from prepared_rollback_probe`));
    expect(row?.rows).toBe(0);
  });
});
