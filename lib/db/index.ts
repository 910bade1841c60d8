import "server-only";
import { env } from "@/lib/env";
import { openDatabase, type Database, type DatabaseHandle } from "./drivers";

export type { Database, Executor, Transaction } from "./drivers";
export { cappedCount, cappedCountOfParts, countLimit, keyedListPage, keyedRowsFrom, listPage, rowsById, type KeyedList, type ListPage, type OrderKey } from "./pages";
export { literal, placeholder, preparedQueries, preparedQuery, preparedStatement, preparedStatements } from "./prepared";
export { statementRows } from "./statement-rows";

// Instrumentation and route bundles can hold separate copies of this module; one handle per process lives on globalThis.
const globalForDatabase = globalThis as unknown as { databaseHandle?: Promise<DatabaseHandle> };

export function getDatabaseHandle(): Promise<DatabaseHandle> {
  globalForDatabase.databaseHandle ??= openDatabase(
    env.DATABASE_URL
      ? { url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE, listenUrl: env.DATABASE_LISTEN_URL }
      : { dataDir: env.DATA_DIR, onFailure: stopServer },
  );
  return globalForDatabase.databaseHandle;
}

/** Without its embedded database the server can answer nothing but errors, so it stops, saying why. */
function stopServer(error: Error): never {
  console.error(`${error.message}. The server stops.`);
  process.exit(1);
}

export async function getDatabase(): Promise<Database> {
  return (await getDatabaseHandle()).db;
}
