import "server-only";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { access } from "node:fs/promises";
import type { Writable } from "node:stream";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type postgres from "postgres";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { gitEnv, repositoryPath } from "@/lib/git/repositories";
import { ArchiveWriter, backupFormat, backupFormatVersion, entryPartBytes, type BackupManifest } from "./archive.mjs";
import { schemaAt } from "./schema-version.mjs";

const gzipped = promisify(gzip);

/** What a backup holds, for the log and the operator. */
export interface BackupSummary {
  bytes: number;
  migration: string;
  tables: number;
  rows: number;
  repositories: number;
  /** How long the database was read (on PGlite: how long every other query waited). */
  databaseMilliseconds: number;
}

/**
 * Writes a backup of the instance to `output` as one archive (lib/backup/archive.mjs): first the database, all of it
 * read in one snapshot, then the git repositories of the projects that snapshot holds, then the manifest.
 *
 * The repositories are read after the snapshot, so each is at least as new as the database says. That is a state the
 * service passes through on every push (git moves the refs, then the service records the push), so a ref newer than
 * its events is harmless. The other way round — events or a default branch naming commits the repository never got —
 * is a state the service is never in, so the repositories are never read first.
 */
export async function writeBackup(handle: DatabaseHandle, output: Writable, options: { now: Date; migrationsFolder: string; environmentSecrets: string[] }): Promise<BackupSummary> {
  const archive = new ArchiveWriter(output, options.now);
  const databaseStarted = performance.now();
  const database = await handle.readSnapshot((sql) => dumpDatabase(sql, archive, options.migrationsFolder));
  const databaseMilliseconds = Math.round(performance.now() - databaseStarted);
  const repositories: BackupManifest["repositories"] = [];
  for (const projectId of database.projectIds) {
    const repository = await bundleRepository(archive, projectId);
    if (repository) repositories.push(repository);
  }
  await archive.finish({
    format: backupFormat,
    formatVersion: backupFormatVersion,
    createdAt: options.now.toISOString(),
    schema: database.schema,
    database: { kind: handle.driver, serverVersion: database.serverVersion, tables: database.tables, sequences: database.sequences },
    repositories,
    environmentSecrets: options.environmentSecrets,
  });
  return {
    bytes: archive.bytesWritten,
    migration: database.schema.migration,
    tables: database.tables.length,
    rows: database.tables.reduce((sum, table) => sum + table.rows, 0),
    repositories: repositories.length,
    databaseMilliseconds,
  };
}

/**
 * The session the snapshot is read in writes values in forms any PostgreSQL reads back alike: UTC ISO times, exact
 * floats, hex bytea.
 */
const portableOutput = ["timezone = 'UTC'", "datestyle = 'ISO, YMD'", "intervalstyle = 'postgres'", "extra_float_digits = 3", "bytea_output = 'hex'"];

/**
 * Every table of the application's schema, as COPY text cut into entries of about `entryPartBytes`. A table is read a
 * range of its pages at a time (a TID range scan), so no statement's answer is large even on PGlite, whose thread
 * answers each statement whole: the range doubles while the answers stay small and halves when one comes out large.
 */
async function dumpDatabase(sql: postgres.TransactionSql, archive: ArchiveWriter, migrationsFolder: string) {
  for (const setting of portableOutput) await sql.unsafe(`set local ${setting}`);
  const [applied] = await sql<{ createdAt: string }[]>`select created_at as "createdAt" from drizzle.__drizzle_migrations order by created_at desc limit 1`;
  if (!applied) throw new Error("the database has no migrations applied");
  const schema = schemaAt(migrationsFolder, Number(applied.createdAt));
  const [{ serverVersion } = { serverVersion: "" }] = await sql<{ serverVersion: string }[]>`select current_setting('server_version') as "serverVersion"`;
  const tables = await sql<{ name: string; columns: string[] }[]>`
    select c.relname as name, json_agg(a.attname order by a.attnum) as columns
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
    where n.nspname = 'public' and c.relkind = 'r'
    group by c.relname
    order by c.relname`;
  const dumped: BackupManifest["database"]["tables"] = [];
  for (const table of tables) dumped.push(await dumpTable(sql, archive, table));
  const projectIds = (await sql<{ id: number }[]>`select id from projects order by id`).map((row) => row.id);
  // Read last: a sequence is not part of the snapshot, so its value now is at least that of every row read.
  const sequences = await sql<{ name: string; lastValue: string }[]>`
    select sequencename as name, last_value::text as "lastValue" from pg_sequences
    where schemaname = 'public' and last_value is not null order by sequencename`;
  return { schema, serverVersion, tables: dumped, sequences: sequences.map(({ name, lastValue }) => ({ name, lastValue })), projectIds };
}

const firstRangePages = 128;
const largestRangePages = 1 << 20;

async function dumpTable(sql: postgres.TransactionSql, archive: ArchiveWriter, table: { name: string; columns: string[] }) {
  const qualified = `"public".${quoteIdentifier(table.name)}`;
  const columns = table.columns.map(quoteIdentifier).join(", ");
  const [{ pages } = { pages: "0" }] = await sql<{ pages: string }[]>`
    select pg_relation_size(${qualified}::regclass) / current_setting('block_size')::int8 as pages`;
  const tablePages = Number(pages);
  const parts = new PartWriter(archive, (index) => `database/${table.name}.${String(index).padStart(6, "0")}.copy.gz`, compressRows);
  let rows = 0;
  let rangePages = firstRangePages;
  for (let start = 0; ; ) {
    const end = start + rangePages;
    // The last range is open-ended: rows the snapshot sees never lie beyond the table's size, whenever it is read.
    const last = end >= tablePages;
    const range = last ? `ctid >= '(${start},0)'::tid` : `ctid >= '(${start},0)'::tid and ctid < '(${end},0)'::tid`;
    let answered = 0;
    for await (const bytes of copyOut(sql, `copy (select ${columns} from ${qualified} where ${range}) to stdout`)) {
      answered += bytes.length;
      rows += countLines(bytes);
      await parts.append(bytes);
    }
    if (last) break;
    start = end;
    if (answered < entryPartBytes / 4) rangePages = Math.min(rangePages * 2, largestRangePages);
    else if (answered > entryPartBytes * 2) rangePages = Math.max(1, Math.floor(rangePages / 2));
  }
  const entries = await parts.close();
  return { name: table.name, columns: table.columns, rows, entries };
}

/**
 * A `COPY … TO STDOUT`, as it arrives; the caller's pace holds the connection back (on PostgreSQL). postgres.js pauses
 * its socket while the COPY's reader is behind, and a COPY that ends while paused leaves it paused, so the
 * connection's next query never gets its answer (porsager/postgres#499). The stream's read hook is what resumes the
 * socket, so it is called once more when the COPY is done.
 */
async function* copyOut(sql: postgres.TransactionSql, statement: string): AsyncGenerator<Buffer> {
  const stream = await sql.unsafe(statement).readable();
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } finally {
    (stream as unknown as { _read(size: number): void })._read(0);
  }
}

/**
 * A project's repository as a git bundle of all its refs (`git bundle create --all`: git reads the refs, then packs
 * what they reach, so a push landing meanwhile cannot leave a ref without its objects), with the branch its HEAD
 * names. Null when the project has no repository (none was ever created, or the project was deleted since the
 * snapshot); no entries when it has no refs.
 */
async function bundleRepository(archive: ArchiveWriter, projectId: number): Promise<BackupManifest["repositories"][number] | null> {
  const repository = repositoryPath(projectId);
  if (!(await exists(repository))) return null;
  const head = (await runGit(["symbolic-ref", "-q", "HEAD"], repository)).stdout.trim() || null;
  const refs = await runGit(["for-each-ref", "--count=1", "--format=%(refname)"], repository);
  if (refs.code !== 0) {
    if (!(await exists(repository))) return null;
    throw new Error(`git cannot read the refs of project ${projectId}'s repository (${repository})`);
  }
  if (refs.stdout.trim() === "") return { projectId, head, entries: [] };
  const parts = new PartWriter(archive, (index) => `repositories/${projectId}.bundle.${String(index).padStart(6, "0")}`, async (bytes) => bytes);
  const git = spawn("git", ["bundle", "create", "-", "--all"], { cwd: repository, env: gitEnv(), stdio: ["ignore", "pipe", "pipe"] });
  const exited = once(git, "close") as Promise<[number | null]>;
  const errorOutput = lastBytesOf(git.stderr);
  try {
    for await (const chunk of git.stdout) await parts.append(chunk as Buffer);
  } catch (error) {
    // The archive's reader went away: git need not finish a bundle nobody reads.
    git.kill();
    throw error;
  }
  const [code] = await exited;
  if (code !== 0) {
    if (parts.written === 0 && !(await exists(repository))) return null;
    throw new Error(`git bundle of project ${projectId}'s repository failed: ${errorOutput().trim()}`);
  }
  return { projectId, head, entries: await parts.close() };
}

/**
 * Cuts a stream of bytes into archive entries of about `entryPartBytes`, at the boundaries of the chunks it is given
 * (rows, for tables), each stored as `encode` makes it.
 */
class PartWriter {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly names: string[] = [];

  constructor(
    private readonly archive: ArchiveWriter,
    private readonly nameOf: (index: number) => string,
    private readonly encode: (bytes: Buffer) => Promise<Buffer>,
  ) {}

  get written(): number {
    return this.names.length;
  }

  async append(bytes: Buffer): Promise<void> {
    this.chunks.push(bytes);
    this.size += bytes.length;
    if (this.size >= entryPartBytes) await this.flush();
  }

  async close(): Promise<string[]> {
    if (this.size > 0) await this.flush();
    return this.names;
  }

  private async flush(): Promise<void> {
    const name = this.nameOf(this.names.length + 1);
    const data = await this.encode(Buffer.concat(this.chunks, this.size));
    this.chunks = [];
    this.size = 0;
    await this.archive.add(name, data);
    this.names.push(name);
  }
}

/** The fastest gzip level: COPY text still shrinks several times, and on PGlite every query waits while it runs. */
function compressRows(bytes: Buffer): Promise<Buffer> {
  return gzipped(bytes, { level: 1 });
}

/** COPY text ends each row with a newline and escapes those inside values, so newlines count rows. */
function countLines(bytes: Buffer): number {
  let count = 0;
  for (let index = bytes.indexOf(10); index !== -1; index = bytes.indexOf(10, index + 1)) count += 1;
  return count;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/**
 * Runs a short git command; its output and exit code (null when it could not start: the directory is gone), never a
 * throw.
 */
async function runGit(args: string[], cwd: string): Promise<{ code: number | null; stdout: string }> {
  const git = spawn("git", args, { cwd, env: gitEnv(), stdio: ["ignore", "pipe", "ignore"] });
  const exited = (once(git, "close") as Promise<[number | null]>).catch(() => [null] as const);
  let stdout = "";
  for await (const chunk of git.stdout) stdout += String(chunk);
  const [code] = await exited;
  return { code, stdout };
}

/** Keeps the last few KiB a stream writes (git's error message), so a chatty process cannot fill memory. */
function lastBytesOf(stream: NodeJS.ReadableStream): () => string {
  let kept = "";
  stream.on("data", (chunk) => {
    kept = (kept + String(chunk)).slice(-4096);
  });
  return () => kept;
}
