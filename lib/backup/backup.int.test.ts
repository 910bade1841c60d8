import { execFileSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { finished } from "node:stream/promises";
import { gunzipSync } from "node:zlib";
import { PassThrough } from "node:stream";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getOrCreateInstanceSecret } from "@/lib/instance-secrets";
import { statementRows } from "@/lib/db";
import { openDatabase, type DatabaseHandle } from "@/lib/db/drivers";
import { createIssue } from "@/lib/issues/issues";
import { createNote } from "@/lib/issues/notes";
import { getSigningKey } from "@/lib/oauth/keys";
import { createProject } from "@/lib/projects/projects";
import { createPostgresDatabase, databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { pushBranches } from "@/lib/testing/git";
import { insertPersonalAccessToken } from "@/lib/users/personal-access-tokens";
import { ArchiveError, ArchiveWriter, backupFormat, backupFormatVersion, verifiedEntries, type BackupManifest } from "./archive.mjs";
import { writeBackup } from "./dump";
import { checkTarget, restoreArchive, TargetError, verifyArchiveFile } from "./restore.mjs";
import { journalOf } from "./schema-version.mjs";

// Repositories are named by project id, which every fresh test database starts again: each run gets its own root.
const repositoriesRoot = vi.hoisted(() => (process.env.REPOSITORIES_DIR = `${process.env.TMPDIR ?? "/tmp"}/backup-test-repositories-${process.pid}-${Date.now()}`));
const scratch = mkdtempSync(path.join(tmpdir(), "backup-test-"));
const migrationsFolder = path.join(process.cwd(), "drizzle");
const journal = journalOf(migrationsFolder);
// Each restore applies every migration to a new database, on both kinds.
const restoreTimeout = 240_000;
afterAll(() => {
  rmSync(repositoriesRoot, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

async function backupTo(handle: DatabaseHandle, file: string): Promise<BackupManifest> {
  const output = createWriteStream(file);
  await writeBackup(handle, output, { now: new Date(), migrationsFolder, environmentSecrets: [] });
  output.end();
  await finished(output);
  return verifyArchiveFile(file);
}

/** Every table's rows as the archive holds them (COPY text, in the order read), by table name. */
async function tableRows(file: string, manifest: BackupManifest): Promise<Map<string, string>> {
  const tableOf = new Map(manifest.database.tables.flatMap((table) => table.entries.map((entry) => [entry, table.name])));
  const rows = new Map(manifest.database.tables.map((table) => [table.name, ""]));
  for await (const entry of verifiedEntries([readFileSync(file)], manifest)) {
    const table = tableOf.get(entry.name);
    if (table) rows.set(table, rows.get(table) + gunzipSync(entry.data).toString("utf8"));
  }
  return rows;
}

/** An archive at the schema of `migration` that holds no rows at all. */
async function archiveOfNoRows(file: string, migration: { tag: string; when: number }): Promise<string> {
  const output = new PassThrough();
  const written = finished(output.pipe(createWriteStream(file)));
  await new ArchiveWriter(output, new Date()).finish({
    format: backupFormat,
    formatVersion: backupFormatVersion,
    createdAt: new Date().toISOString(),
    schema: { migration: migration.tag, createdAt: migration.when },
    database: { kind: "pglite", serverVersion: "", tables: [], sequences: [] },
    repositories: [],
    environmentSecrets: [],
  });
  output.end();
  await written;
  return file;
}

interface Target {
  name: string;
  target: Parameters<typeof checkTarget>[0];
  open(): Promise<DatabaseHandle>;
  drop(): Promise<void>;
}

/** Fresh, empty targets of both kinds (PostgreSQL when TEST_DATABASE_URL is set), with repositories of their own. */
async function freshTargets(label: string): Promise<Target[]> {
  const dataDir = path.join(scratch, `${label}-${uniqueSuffix()}`);
  const targets: Target[] = [
    {
      name: "pglite",
      target: { database: { kind: "pglite", dataDir }, dataDir, repositoriesDir: path.join(dataDir, "repositories") },
      open: () => openDatabase({ dataDir }),
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    },
  ];
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const database = await createPostgresDatabase(serverUrl);
    const postgresDataDir = `${dataDir}-postgres`;
    targets.push({
      name: "postgres",
      target: { database: { kind: "postgres", url: database.url }, dataDir: postgresDataDir, repositoriesDir: path.join(postgresDataDir, "repositories") },
      open: () => openDatabase({ url: database.url, poolSize: 2 }),
      drop: async () => {
        await database.drop();
        rmSync(postgresDataDir, { recursive: true, force: true });
      },
    });
  }
  return targets;
}

function refsOf(repository: string): string {
  return execFileSync("git", ["for-each-ref", "--format=%(objectname) %(refname)"], { cwd: repository, encoding: "utf8" });
}

describe.each(testDatabases())("a backup of $name", ({ name, open }) => {
  const handle = databaseForSuite(open);
  // The suites' databases number their projects alike: each starts with no repositories.
  beforeAll(() => rmSync(repositoriesRoot, { recursive: true, force: true }));

  it("restores into either database as it was: every row of every table, the sequences and the repositories", { timeout: restoreTimeout }, async () => {
    const owner = await createTestUser(handle.db, { isAdmin: true });
    const as = userContext(handle.db, owner);
    const { project } = await createProject(as, { name: `Backed up ${uniqueSuffix()}` });
    // What COPY text must escape, and its own null marker written as text.
    const tricky = "tab\there, newline\nthere, backslash \\ and \\N, carriage\rreturn, ünïcødé ✓";
    const { issue } = await createIssue(as, String(project.id), { title: "Confidential \\N", description: tricky, confidential: true });
    await createNote(as, String(project.id), issue.iid, { body: tricky, internal: true });
    await insertPersonalAccessToken(handle.db, owner.id, { name: "ci", scopes: ["api", "read_user"] }, new Date());
    await getOrCreateInstanceSecret(handle.db, "session_secret");
    await getSigningKey(handle.db);
    // A table of several hundred pages, read in several ranges.
    await handle.db.execute(sql`insert into instance_secrets (name, value) select 'bulk-' || n, repeat(md5(n::text), 4) from generate_series(1, 30000) n`);
    const [bulk] = statementRows<{ pages: number }>(await handle.db.execute(sql`select (pg_relation_size('instance_secrets') / 8192)::int as pages`));
    expect(bulk!.pages).toBeGreaterThan(600);
    const heads = await pushBranches(project.id, { main: 2, feature: 1 });
    const emptyProject = (await createProject(as, { name: `Empty ${uniqueSuffix()}` })).project;
    execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=trunk", path.join(repositoriesRoot, `${emptyProject.id}.git`)]);

    const archive = path.join(scratch, `${name}.tar`);
    const manifest = await backupTo(handle, archive);
    expect(manifest.database.kind).toBe(handle.driver);
    expect(manifest.schema).toEqual({ migration: journal.at(-1)!.tag, createdAt: journal.at(-1)!.when });
    expect(manifest.repositories).toEqual([
      { projectId: project.id, head: "refs/heads/main", entries: [`repositories/${project.id}.bundle.000001`] },
      { projectId: emptyProject.id, head: "refs/heads/trunk", entries: [] },
    ]);
    // Every row of every table, each once.
    for (const table of manifest.database.tables) {
      const [counted] = statementRows<{ count: string }>(await handle.db.execute(sql.raw(`select count(*)::text as count from "${table.name}"`)));
      expect(table.rows, table.name).toBe(Number(counted!.count));
    }
    const rows = await tableRows(archive, manifest);
    expect(rows.get("issues")).toContain("tab\\there, newline\\nthere, backslash \\\\ and \\\\N, carriage\\rreturn, ünïcødé ✓");
    expect(rows.get("instance_secrets")).toMatch(/^session_secret\t/m);
    expect(rows.get("oauth_signing_keys")).not.toBe("");
    expect(manifest.database.sequences).toContainEqual({ name: "users_id_seq", lastValue: String(owner.id) });

    for (const target of await freshTargets(name)) {
      await checkTarget(target.target);
      await restoreArchive(archive, manifest, target.target, { migrationsFolder });
      const restored = await target.open();
      try {
        const again = await backupTo(restored, path.join(scratch, `${name}-in-${target.name}.tar`));
        expect(again.database.kind, target.name).toBe(target.name);
        expect(again.schema).toEqual(manifest.schema);
        expect(again.database.sequences).toEqual(manifest.database.sequences);
        expect(await tableRows(path.join(scratch, `${name}-in-${target.name}.tar`), again)).toEqual(rows);
        // Nothing the triggers keep was counted twice, and the server's migrations find nothing to do.
        await restored.migrate();
        const restoredRepository = path.join(target.target.repositoriesDir, `${project.id}.git`);
        expect(refsOf(restoredRepository)).toBe(`${heads.get("feature")} refs/heads/feature\n${heads.get("main")} refs/heads/main\n`);
        expect(execFileSync("git", ["symbolic-ref", "HEAD"], { cwd: restoredRepository, encoding: "utf8" })).toBe("refs/heads/main\n");
        expect(execFileSync("git", ["rev-list", "--count", "main"], { cwd: restoredRepository, encoding: "utf8" })).toBe("2\n");
        const restoredEmpty = path.join(target.target.repositoriesDir, `${emptyProject.id}.git`);
        expect(refsOf(restoredEmpty)).toBe("");
        expect(execFileSync("git", ["symbolic-ref", "HEAD"], { cwd: restoredEmpty, encoding: "utf8" })).toBe("refs/heads/trunk\n");
        expect((await readdir(target.target.repositoriesDir)).sort()).toEqual([`${emptyProject.id}.git`, `${project.id}.git`].sort());
        // Now it is not empty: a second restore is refused.
        await expect(checkTarget(target.target)).rejects.toThrow(TargetError);
      } finally {
        await restored.close();
        await target.drop();
      }
    }
  });
});

describe("a restore", () => {
  // Whichever database the backup came from: what matters is the target's.
  const source = databaseForSuite(testDatabases()[0]!.open);
  beforeAll(() => rmSync(repositoriesRoot, { recursive: true, force: true }));

  it("leaves nothing behind when the archive turns out damaged halfway through the restore", { timeout: restoreTimeout }, async () => {
    const owner = await createTestUser(source.db);
    const { project } = await createProject(userContext(source.db, owner), { name: `Halfway ${uniqueSuffix()}` });
    await pushBranches(project.id, { main: 1 });
    const archive = path.join(scratch, "damaged.tar");
    const manifest = await backupTo(source, archive);
    // Changed after it was verified: the last repository entry no longer matches.
    const bytes = readFileSync(archive);
    const bundleName = manifest.repositories.at(-1)!.entries.at(-1)!;
    const at = bytes.indexOf(Buffer.from(bundleName)) + 512 + 20;
    bytes.writeUInt8(bytes.readUInt8(at) ^ 0xff, at);
    writeFileSync(archive, bytes);
    for (const target of await freshTargets("damaged")) {
      try {
        const failure = await restoreArchive(archive, manifest, target.target, { migrationsFolder }).catch((error: unknown) => error);
        expect(failure, target.name).toBeInstanceOf(ArchiveError);
        expect((failure as Error).message).toBe(`it is damaged: ${bundleName} does not match its checksum`);
        await checkTarget(target.target);
        expect(await readdir(path.dirname(target.target.repositoriesDir)).catch(() => [])).toEqual([]);
      } finally {
        await target.drop();
      }
    }
  });
});

describe("a backup taken at an older schema", () => {
  it("is restored at that schema, and the server's migrations bring it up to date", { timeout: restoreTimeout }, async () => {
    const older = journal.at(-2)!;
    // A database as a version of the service without the latest migration left it: restored from an archive of no
    // rows at that schema.
    const olderDir = path.join(scratch, `older-source-${uniqueSuffix()}`);
    const empty = await archiveOfNoRows(path.join(scratch, "older-empty.tar"), older);
    const olderTarget = { database: { kind: "pglite" as const, dataDir: olderDir }, dataDir: olderDir, repositoriesDir: path.join(olderDir, "repositories") };
    await restoreArchive(empty, await verifyArchiveFile(empty), olderTarget, { migrationsFolder });
    const source = await openDatabase({ dataDir: olderDir });
    const targets = await freshTargets("older");
    try {
      const user = await createTestUser(source.db);
      const archive = path.join(scratch, "older.tar");
      const manifest = await backupTo(source, archive);
      expect(manifest.schema).toEqual({ migration: older.tag, createdAt: older.when });

      // Into one target (PostgreSQL when there is one): the schema is what matters here, not the database.
      for (const target of targets.slice(-1)) {
        await restoreArchive(archive, manifest, target.target, { migrationsFolder });
        const restored = await target.open();
        try {
          const applied = async () => statementRows<{ count: string }>(await restored.db.execute(sql`select count(*)::text as count from drizzle.__drizzle_migrations`))[0]!.count;
          expect(await applied()).toBe(String(journal.length - 1));
          await restored.migrate();
          expect(await applied()).toBe(String(journal.length));
          const [row] = statementRows<{ username: string }>(await restored.db.execute(sql`select username from users where id = ${user.id}`));
          expect(row?.username).toBe(user.username);
        } finally {
          await restored.close();
        }
      }
    } finally {
      await source.close();
      rmSync(olderDir, { recursive: true, force: true });
      for (const target of targets) await target.drop();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("restoring into PostgreSQL", () => {
  it("needs a role that may load rows without their triggers, and says how to grant it", { timeout: restoreTimeout }, async () => {
    const serverUrl = process.env.TEST_DATABASE_URL!;
    const role = `backup_restorer_${uniqueSuffix()}`;
    const admin = (await import("postgres")).default(serverUrl, { max: 1, onnotice: () => {} });
    const database = await createPostgresDatabase(serverUrl);
    const url = new URL(database.url);
    url.username = role;
    url.password = "";
    try {
      await admin.unsafe(`create role "${role}" login`);
      await admin.unsafe(`alter database "${new URL(database.url).pathname.slice(1)}" owner to "${role}"`);
      const archive = await archiveOfNoRows(path.join(scratch, "unprivileged.tar"), journal.at(-1)!);
      const dataDir = path.join(scratch, `unprivileged-${uniqueSuffix()}`);
      const target = { database: { kind: "postgres" as const, url: url.toString() }, dataDir, repositoriesDir: path.join(dataDir, "repositories") };
      await checkTarget(target);
      const failure = await restoreArchive(archive, await verifyArchiveFile(archive), target, { migrationsFolder }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TargetError);
      expect((failure as Error).message).toBe(
        "the database role of DATABASE_URL may not set session_replication_role, which restoring needs to load the rows without running the triggers that would count them again. Restore as a superuser, or grant it (PostgreSQL 15 or newer): GRANT SET ON PARAMETER session_replication_role TO <role>;",
      );
      // Rolled back: still empty, as it was.
      await checkTarget(target);
    } finally {
      await database.drop();
      await admin.unsafe(`drop role if exists "${role}"`);
      await admin.end();
    }
  });
});
