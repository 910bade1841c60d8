import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, inject } from "vitest";
import { startSilenceCache } from "@/lib/alerts/silence-cache";
import { openDatabase, type DatabaseHandle } from "@/lib/db/drivers";
import type { DatabaseImages } from "@/lib/testing/database-images";
import { startTokenCheckCache } from "@/lib/token-checks/checks";

export interface TestDatabase {
  name: "pglite" | "postgres";
  open(): Promise<DatabaseHandle>;
}

/**
 * The databases integration tests run against: PGlite always, and PostgreSQL as well when TEST_DATABASE_URL is set.
 * Each `open()` gives a fresh, migrated database that nothing else uses, with token checks and silences cached as the
 * server caches them.
 */
export function testDatabases(): TestDatabase[] {
  const databases: TestDatabase[] = [{ name: "pglite", open: openFreshPglite }];
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) databases.push({ name: "postgres", open: () => openFreshPostgres(serverUrl) });
  return databases;
}

/**
 * A fresh database for one suite: opened before its tests, closed after them. The handle returned forwards to the
 * opened one, so tests and hooks use it as they would the real handle.
 */
export function databaseForSuite(open: () => Promise<DatabaseHandle>): DatabaseHandle {
  let opened: DatabaseHandle | undefined;
  beforeAll(async () => {
    opened = await open();
  });
  afterAll(async () => {
    await opened?.close();
  });
  const current = (): DatabaseHandle => {
    if (!opened) throw new Error("the suite's database is only open inside tests and hooks, after beforeAll");
    return opened;
  };
  return {
    get db() {
      return current().db;
    },
    get driver() {
      return current().driver;
    },
    migrate: () => current().migrate(),
    close: () => current().close(),
    runExclusive: (key, job) => current().runExclusive(key, job),
    listen: (channel, listener) => current().listen(channel, listener),
    readSnapshot: (job) => current().readSnapshot(job),
  };
}

/**
 * The run's migrated images (lib/testing/database-images.ts, the integration tests' global setup), or none where a
 * test runs without that setup: then each database is created empty and migrated.
 */
function databaseImages(): DatabaseImages | undefined {
  return inject("databaseImages");
}

async function openFreshPglite(): Promise<DatabaseHandle> {
  const handle = await openDatabase({ dataDir: "memory://", image: databaseImages()?.pgliteImage });
  // A no-op on the migrated image, but it proves the image and the migrations agree.
  await handle.migrate();
  await startTokenCheckCache(handle);
  await startSilenceCache(handle);
  return handle;
}

/** Creates a new database on the server named by `serverUrl`, migrates it, and drops it again on close. */
async function openFreshPostgres(serverUrl: string): Promise<DatabaseHandle> {
  const database = await createPostgresDatabase(serverUrl, databaseImages()?.postgresTemplate ?? undefined);
  const handle = await openDatabase({ url: database.url, poolSize: 4 });
  await handle.migrate();
  await startTokenCheckCache(handle);
  await startSilenceCache(handle);
  return {
    ...handle,
    async close() {
      await handle.close();
      await database.drop();
    },
  };
}

/**
 * A new database on the server named by `serverUrl`: empty, or a copy of `template`. Tests that open several handles
 * on one database call it directly.
 */
export async function createPostgresDatabase(serverUrl: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const databaseName = `test_${Date.now()}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${databaseName}"${template ? ` template "${template}"` : ""}`);
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
      await admin.end();
    },
  };
}
