import { sql } from "drizzle-orm";
import type { Database } from "@/lib/db";
import { openDatabase, type DatabaseHandle } from "@/lib/db/drivers";
import { createPostgresDatabase } from "./databases";

/** Polls `check` until it passes or two seconds are up, for what another process hears through a notification. */
export async function eventually(check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 2000;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Lets notifications still travelling from earlier steps arrive, so the next lookup fills a cache for certain. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

/** The connections LISTENing on `db`'s database (each process has one), but the caller's. */
export async function listeningConnections(db: Database): Promise<number[]> {
  // postgres.js answers db.execute with an array of rows.
  const rows = (await db.execute(
    sql`select pid from pg_stat_activity where datname = current_database() and query ilike 'listen%' and pid <> pg_backend_pid()`,
  )) as unknown as { pid: number }[];
  return rows.map((row) => row.pid);
}

/** Ends these connections, as a network failure would: their processes miss what is notified until they listen again. */
export async function dropConnections(db: Database, pids: readonly number[]): Promise<void> {
  await db.execute(sql`select pg_terminate_backend(pid) from pg_stat_activity where pid in (${sql.join(pids.map((pid) => sql`${pid}`), sql`, `)})`);
}

/** Two handles on one new, migrated PostgreSQL database, as two processes of the service have; `close` drops it. */
export async function twoProcesses(serverUrl: string): Promise<{ here: DatabaseHandle; there: DatabaseHandle; close(): Promise<void> }> {
  const database = await createPostgresDatabase(serverUrl);
  const here = await openDatabase({ url: database.url, poolSize: 2 });
  await here.migrate();
  const there = await openDatabase({ url: database.url, poolSize: 2 });
  return {
    here,
    there,
    async close() {
      await here.close();
      await there.close();
      await database.drop();
    },
  };
}
