import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { openDatabase, type DatabaseHandle } from "@/lib/db/drivers";

export interface TestDatabase {
  name: "pglite" | "postgres";
  open(): Promise<DatabaseHandle>;
}

/**
 * The databases integration tests run against: PGlite always, and PostgreSQL as well when TEST_DATABASE_URL is set.
 * Each `open()` gives a fresh, migrated database that nothing else uses.
 */
export function testDatabases(): TestDatabase[] {
  const databases: TestDatabase[] = [{ name: "pglite", open: openFreshPglite }];
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) databases.push({ name: "postgres", open: () => openFreshPostgres(serverUrl) });
  return databases;
}

async function openFreshPglite(): Promise<DatabaseHandle> {
  const handle = await openDatabase({ dataDir: "memory://" });
  await handle.migrate();
  return handle;
}

/** Creates a new database on the server named by `serverUrl`, migrates it, and drops it again on close. */
async function openFreshPostgres(serverUrl: string): Promise<DatabaseHandle> {
  const databaseName = `test_${Date.now()}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${databaseName}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  const handle = await openDatabase({ url: url.toString(), poolSize: 4 });
  await handle.migrate();
  return {
    ...handle,
    async close() {
      await handle.close();
      await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
      await admin.end();
    },
  };
}
