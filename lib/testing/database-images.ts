import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { TestProject } from "vitest/node";
import { openDatabase } from "@/lib/db/drivers";
import { createPostgresDatabase } from "./databases";

/**
 * Vitest's global setup for the integration tests: one migrated database per engine for the whole run, which every
 * fresh test database then copies (lib/testing/databases.ts). Creating and migrating an embedded database costs some
 * five seconds of CPU, most of it PGlite's own initdb; a copy of a migrated image takes a fraction of one. On
 * PostgreSQL the copy is `create database … template`. Both are made once per run and removed at its end.
 */
export interface DatabaseImages {
  /** A file PGlite's `dumpDataDir()` wrote after the migrations ran. */
  pgliteImage: string;
  /** A migrated database on TEST_DATABASE_URL's server that nobody connects to, to create others from. */
  postgresTemplate: string | null;
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseImages: DatabaseImages;
  }
}

const migrationsFolder = path.join(process.cwd(), "drizzle");

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const directory = mkdtempSync(path.join(tmpdir(), "test-database-images-"));
  const pgliteImage = path.join(directory, "pglite.tar");
  const serverUrl = process.env.TEST_DATABASE_URL;
  const [, template] = await Promise.all([writePgliteImage(pgliteImage), serverUrl ? createPostgresTemplate(serverUrl) : null]);
  project.provide("databaseImages", { pgliteImage, postgresTemplate: template?.name ?? null });
  return async () => {
    await template?.drop();
    rmSync(directory, { recursive: true, force: true });
  };
}

async function writePgliteImage(file: string): Promise<void> {
  const database = new PGlite();
  try {
    await migratePglite(drizzlePglite({ client: database }), { migrationsFolder });
    const image = await database.dumpDataDir("none");
    writeFileSync(file, Buffer.from(await image.arrayBuffer()));
  } finally {
    await database.close();
  }
}

/** The service's own migration path (lib/db/drivers.ts), on a database created for the purpose. */
async function createPostgresTemplate(serverUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const database = await createPostgresDatabase(serverUrl);
  const handle = await openDatabase({ url: database.url, poolSize: 1 });
  try {
    await handle.migrate();
  } finally {
    await handle.close();
  }
  return { name: new URL(database.url).pathname.slice(1), drop: database.drop };
}
