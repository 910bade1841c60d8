// Restoring a backup archive (lib/backup/archive.mjs) into an empty data directory or an empty PostgreSQL database,
// with the server stopped: `npm run restore` (restore-command.mjs) runs it. The archive is checked whole first
// (`verifyArchiveFile`), then the target (`checkTarget`), and only then is anything written (`restoreArchive`).
//
// The rows are a logical dump (COPY text), so a backup of either database restores into either. The schema is built
// by this version's own migrations, up to the one the backup was taken at; the server applies the newer ones when it
// starts. Everything the database receives happens in one transaction, so a failure leaves it as empty as it was.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { appendFile, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { createConnection } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { ArchiveError, ArchiveVerifier, verifiedEntries } from "./archive.mjs";
import { migrationsUpTo } from "./schema-version.mjs";

const gunzipped = promisify(gunzip);

/** The target is not one a backup may be restored into (not empty, or its server is running). */
export class TargetError extends Error {}

/**
 * Reads the whole archive and answers its manifest once every entry matched its checksum; an `ArchiveError` says what
 * is wrong otherwise.
 * @param {string} file
 */
export async function verifyArchiveFile(file) {
  const verifier = new ArchiveVerifier();
  for await (const chunk of createReadStream(file)) verifier.push(chunk);
  return verifier.finish();
}

/**
 * @typedef {{ kind: "pglite", dataDir: string } | { kind: "postgres", url: string }} DatabaseTarget
 * @typedef {{ database: DatabaseTarget, dataDir: string, repositoriesDir: string }} RestoreTarget
 */

/**
 * Throws a `TargetError` unless the target is one to restore into: no server running with its DATA_DIR, and an empty
 * (or missing) data directory for PGlite or an empty database for PostgreSQL, and an empty (or missing) repositories
 * directory.
 * @param {RestoreTarget} target
 */
export async function checkTarget(target) {
  const socket = path.join(target.dataDir, "operator.sock");
  if (await answers(socket)) {
    throw new TargetError(`a server is running with DATA_DIR=${target.dataDir} (it answers at ${socket}). Stop it first: restoring writes what it reads.`);
  }
  if (target.database.kind === "pglite") await requireEmptyDirectory(target.dataDir, "DATA_DIR", ["operator.sock"]);
  else await requireEmptyDatabase(target.database.url);
  await requireEmptyDirectory(target.repositoriesDir, "REPOSITORIES_DIR", []);
}

/** @param {string} socketPath */
function answers(socketPath) {
  return new Promise((resolve) => {
    const socket = createConnection(socketPath);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * @param {string} directory
 * @param {string} setting
 * @param {string[]} ignored names a stopped server can leave behind (its socket file)
 */
async function requireEmptyDirectory(directory, setting, ignored) {
  let names;
  try {
    names = await readdir(directory);
  } catch (error) {
    if (error.code === "ENOENT") return;
    if (error.code === "ENOTDIR") throw new TargetError(`${setting}=${directory} is a file, not a directory.`);
    throw error;
  }
  const present = names.filter((name) => !ignored.includes(name));
  if (present.length > 0) {
    throw new TargetError(
      `${setting}=${directory} is not empty (it holds ${listed(present)}). Restore into an empty or new directory: point ${setting} at one, or move this one away.`,
    );
  }
}

/** @param {string} url */
async function requireEmptyDatabase(url) {
  const { default: postgres } = await import("postgres");
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    const relations = await sql`
      select n.nspname || '.' || c.relname as name
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
        and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
      order by 1`;
    if (relations.length > 0) {
      throw new TargetError(
        `the database ${databaseName(url)} is not empty (it holds ${listed(relations.map((relation) => relation.name))}). Restore into an empty database: create one (createdb <name>) and point DATABASE_URL at it.`,
      );
    }
  } catch (error) {
    if (error.code === "3D000") throw new TargetError(`the database ${databaseName(url)} does not exist. Create it (createdb <name>), empty, then restore.`);
    throw error;
  } finally {
    await sql.end();
  }
}

/**
 * Where a URL points, without its credentials.
 * @param {string} url
 */
export function databaseName(url) {
  const parsed = new URL(url);
  return `${parsed.pathname.slice(1)} on ${parsed.hostname}${parsed.port ? `:${parsed.port}` : ""}`;
}

/** @param {string[]} names */
function listed(names) {
  const shown = names.slice(0, 5).join(", ");
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/**
 * Restores a verified archive into a checked target: the schema up to the backup's migration and every row, in one
 * transaction; the repositories into a directory beside REPOSITORIES_DIR, moved into place once the database has
 * committed. On any failure nothing is left behind: the transaction rolls back, and what was created on disk is
 * removed. `signal` stops it the same way (Ctrl-C).
 * @param {string} file
 * @param {import("./archive.d.mts").BackupManifest} manifest
 * @param {RestoreTarget} target
 * @param {{ migrationsFolder: string, signal?: AbortSignal }} options
 */
export async function restoreArchive(file, manifest, target, { migrationsFolder, signal }) {
  const migrations = migrationsUpTo(migrationsFolder, manifest.schema);
  const tableOf = new Map(manifest.database.tables.flatMap((table) => table.entries.map((entry) => [entry, table])));
  const repositoryOf = new Map(manifest.repositories.flatMap((repository) => repository.entries.map((entry) => [entry, repository])));
  // Absolute: git runs in other directories.
  const repositoriesDir = path.resolve(target.repositoriesDir);
  const staging = `${repositoriesDir}.restoring-${randomBytes(6).toString("hex")}`;
  const dataDirExisted = await exists(target.dataDir);
  /** @type {Loader | undefined} */
  let loader;
  try {
    loader = await openLoader(target.database);
    await mkdir(staging, { recursive: true });
    await loader.exec("begin");
    await createSchema(loader, migrations);
    await loadRowsAsTheyWere(loader);
    const tables = manifest.database.tables.map((table) => `public.${quoteIdentifier(table.name)}`);
    // Empty already, unless a migration wrote rows of its own: the backup's rows replace them.
    if (tables.length > 0) await loader.exec(`truncate ${tables.join(", ")}`);
    const bundles = new Set();
    for await (const entry of verifiedEntries(createReadStream(file), manifest)) {
      signal?.throwIfAborted();
      const table = tableOf.get(entry.name);
      const repository = repositoryOf.get(entry.name);
      if (table) {
        await loader.copyIn(table.name, table.columns, await gunzipped(entry.data));
      } else if (repository) {
        const bundle = path.join(staging, `${repository.projectId}.bundle`);
        await appendFile(bundle, entry.data, { mode: 0o600 });
        bundles.add(bundle);
        if (entry.name === repository.entries.at(-1)) await restoreRepository(staging, repository, bundle, signal);
      } else {
        throw new ArchiveError(`it is damaged: its manifest does not say what ${entry.name} holds`);
      }
    }
    for (const repository of manifest.repositories) {
      if (repository.entries.length === 0) await restoreRepository(staging, repository, null, signal);
    }
    for (const sequence of manifest.database.sequences) {
      await loader.query("select setval(format('public.%I', $1::text)::regclass, $2::bigint, true)", [sequence.name, sequence.lastValue]);
    }
    signal?.throwIfAborted();
    await loader.exec("commit");
    // The planner's statistics are not part of a dump; PGlite has no autovacuum to gather them later.
    await loader.exec("analyze");
  } catch (error) {
    await loader?.exec("rollback").catch(() => {});
    await loader?.close().catch(() => {});
    loader = undefined;
    await rm(staging, { recursive: true, force: true });
    if (target.database.kind === "pglite") await emptyDirectory(target.dataDir, dataDirExisted);
    throw error;
  } finally {
    await loader?.close();
  }
  // Over the empty directory, if there is one: rename replaces an empty directory.
  await rename(staging, repositoriesDir);
  return {
    tables: manifest.database.tables.length,
    rows: manifest.database.tables.reduce((sum, table) => sum + table.rows, 0),
    repositories: manifest.repositories.length,
  };
}

/**
 * The schema as this version's migrations build it, up to the backup's, with drizzle's record of each (the table its
 * migrator reads at start-up to apply only the newer ones), inside the restore's transaction, where drizzle's migrator
 * would commit on its own.
 * @param {Loader} loader
 * @param {import("drizzle-orm/migrator").MigrationMeta[]} migrations
 */
async function createSchema(loader, migrations) {
  for (const migration of migrations) {
    for (const statement of migration.sql) if (statement.trim() !== "") await loader.exec(statement);
  }
  await loader.exec('create schema if not exists "drizzle"');
  await loader.exec('create table if not exists "drizzle"."__drizzle_migrations" (id serial primary key, hash text not null, created_at bigint)');
  for (const migration of migrations) {
    await loader.query('insert into "drizzle"."__drizzle_migrations" ("hash", "created_at") values ($1, $2)', [migration.hash, migration.folderMillis]);
  }
}

/**
 * The rows are loaded as they were, without the triggers that would maintain them: the counts, audiences and
 * traversal ids they keep are in the backup already, and would be counted twice. `session_replication_role = replica`
 * is how pg_dump's restores do it; it also skips the foreign keys' checks, which the backup's snapshot satisfied.
 * @param {Loader} loader
 */
async function loadRowsAsTheyWere(loader) {
  try {
    await loader.exec("set local session_replication_role = replica");
  } catch (error) {
    if (error.code !== "42501") throw error;
    throw new TargetError(
      "the database role of DATABASE_URL may not set session_replication_role, which restoring needs to load the rows without running the triggers that would count them again. Restore as a superuser, or grant it (PostgreSQL 15 or newer): GRANT SET ON PARAMETER session_replication_role TO <role>;",
    );
  }
  await loader.exec("set local timezone = 'UTC'");
}

/**
 * A bare repository from its bundle (or, for one without refs, an empty one), with HEAD naming the branch it named.
 * The service's post-receive hook is not in the backup: the server installs it before the repository's first use.
 * @param {string} staging
 * @param {{ projectId: number, head: string | null }} repository
 * @param {string | null} bundle
 * @param {AbortSignal | undefined} signal
 */
async function restoreRepository(staging, repository, bundle, signal) {
  const directory = path.join(staging, `${repository.projectId}.git`);
  await git(["init", "--quiet", "--bare", "--initial-branch=main", directory], staging, signal);
  if (bundle) {
    await git(["fetch", "--quiet", bundle, "+refs/*:refs/*"], directory, signal);
    await rm(bundle);
  }
  if (repository.head) await git(["symbolic-ref", "HEAD", repository.head], directory, signal);
}

/**
 * @param {string[]} args
 * @param {string} cwd
 * @param {AbortSignal | undefined} signal
 */
async function git(args, cwd, signal) {
  // Only what git needs to run: no user or system configuration changes what it writes.
  const env = { PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_TERMINAL_PROMPT: "0" };
  try {
    await promisify(execFile)("git", args, { cwd, env, signal, maxBuffer: 1024 * 1024 });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new Error(`git ${args[0]} failed: ${String(error.stderr || error.message).trim()}`);
  }
}

/**
 * Leaves a data directory as the restore found it: empty, or absent.
 * @param {string} directory
 * @param {boolean} existed
 */
async function emptyDirectory(directory, existed) {
  if (!existed) {
    await rm(directory, { recursive: true, force: true });
    return;
  }
  for (const name of await readdir(directory).catch(() => [])) {
    if (name !== "operator.sock") await rm(path.join(directory, name), { recursive: true, force: true });
  }
}

/** @param {string} file */
async function exists(file) {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** @param {string} name */
function quoteIdentifier(name) {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * What the restore does to a database, the same on both: statements, parameterized queries, and COPY of one entry's
 * rows.
 * @typedef {{
 *   exec(text: string): Promise<unknown>,
 *   query(text: string, params: unknown[]): Promise<unknown>,
 *   copyIn(table: string, columns: string[], rows: Buffer): Promise<void>,
 *   close(): Promise<void>,
 * }} Loader
 */

/**
 * @param {DatabaseTarget} database
 * @returns {Promise<Loader>}
 */
async function openLoader(database) {
  const copyStatement = (/** @type {string} */ table, /** @type {string[]} */ columns, /** @type {string} */ source) =>
    `copy public.${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(", ")}) from ${source}`;
  if (database.kind === "pglite") {
    // In this process, as the server would (it is stopped): PGlite opens its directory for one process only. Its
    // COPY reads rows from a blob it is given, not from the wire.
    const { PGlite } = await import("@electric-sql/pglite");
    const pg = new PGlite(path.resolve(database.dataDir));
    await pg.waitReady;
    return {
      exec: (text) => pg.exec(text),
      query: (text, params) => pg.query(text, params),
      async copyIn(table, columns, rows) {
        await pg.query(copyStatement(table, columns, "'/dev/blob'"), [], { blob: new Blob([rows]) });
      },
      close: () => pg.close(),
    };
  }
  const { default: postgres } = await import("postgres");
  // One connection: the whole restore is one transaction on it.
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  return {
    exec: (text) => sql.unsafe(text).simple(),
    query: (text, params) => sql.unsafe(text, /** @type {never} */ (params)),
    async copyIn(table, columns, rows) {
      await pipeline(Readable.from([rows]), await sql.unsafe(copyStatement(table, columns, "stdin")).writable());
    },
    close: () => sql.end(),
  };
}
