import "server-only";
import { env } from "@/lib/env";
import { openDatabase, type Database, type DatabaseHandle } from "./drivers";

export type { Database, Executor, Transaction } from "./drivers";
export { literal, placeholder, preparedQuery, preparedStatement, preparedStatements } from "./prepared";

// Instrumentation and route bundles can hold separate copies of this module; one handle per process lives on globalThis.
const globalForDatabase = globalThis as unknown as { databaseHandle?: Promise<DatabaseHandle> };

export function getDatabaseHandle(): Promise<DatabaseHandle> {
  globalForDatabase.databaseHandle ??= openDatabase({
    url: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    poolSize: env.DATABASE_POOL_SIZE,
  });
  return globalForDatabase.databaseHandle;
}

export async function getDatabase(): Promise<Database> {
  return (await getDatabaseHandle()).db;
}
