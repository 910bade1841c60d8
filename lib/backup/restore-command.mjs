// `npm run restore -- <file>`: puts a backup written by `npm run backup` into an empty data directory or an empty
// PostgreSQL database, with the server stopped, as GitLab's `gitlab-backup restore`. The work is in restore.mjs.
import { stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ArchiveError } from "./archive.mjs";
import { checkTarget, databaseName, restoreArchive, TargetError, verifyArchiveFile } from "./restore.mjs";
import { migrationsUpTo } from "./schema-version.mjs";

// Read as the server reads them (lib/env.ts, which a script cannot load): an empty value counts as unset.
const dataDir = process.env.DATA_DIR || "./.data";
const databaseUrl = process.env.DATABASE_URL || undefined;
const repositoriesDir = process.env.REPOSITORIES_DIR || `${dataDir.replace(/\/+$/, "")}/repositories`;
const migrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

const exitRestored = 0;
const exitFailed = 1;
const exitUsage = 2;
const exitArchiveRefused = 3;
const exitTargetRefused = 4;

const usage = `Usage: npm run restore -- <file>

Restores a backup written by npm run backup into an empty database, with no server running on it. Where it goes is
read from the environment, as the server reads it:
  DATABASE_URL       set: this PostgreSQL database, which must exist and be empty (createdb <name>);
                     unset: the embedded database in DATA_DIR.
  DATA_DIR           (now: ${dataDir}) for the embedded database, empty or absent; no server may run with it.
  REPOSITORIES_DIR   (now: ${repositoriesDir}) empty or absent.
A backup of either database restores into either. The file is checked whole before anything is written, and a restore
that fails leaves the target as empty as it was. A backup from an older version is restored as it was, and the server
brings it up to date when it starts; one from a newer version is refused.

Exit status: 0 restored; 1 the restore failed (nothing was left behind; the message says why); 2 wrong usage;
3 the file is not a backup this version can restore (damaged, incomplete, or from a newer version); 4 the target is
not empty, or a server is running on it.`;

function fail(message, code) {
  console.error(message);
  process.exit(code);
}

function parse() {
  try {
    return parseArgs({ allowPositionals: true, options: { help: { type: "boolean", short: "h" } } });
  } catch (error) {
    return fail(`${error.message}\n\n${usage}`, exitUsage);
  }
}

const { positionals, values } = parse();
if (values.help) {
  console.log(usage);
  process.exit(exitRestored);
}
if (positionals.length !== 1) fail(`Name the backup file to restore.\n\n${usage}`, exitUsage);
const [file] = positionals;
if (!(await stat(file).catch(() => null))?.isFile()) fail(`${file} is not a file: name a backup written by npm run backup.`, exitUsage);
if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) fail("DATABASE_URL must be a postgres:// or postgresql:// URL.", exitUsage);

const target = {
  database: databaseUrl ? { kind: "postgres", url: databaseUrl } : { kind: "pglite", dataDir },
  dataDir,
  repositoriesDir,
};
const where = databaseUrl ? `the PostgreSQL database ${databaseName(databaseUrl)}` : `the embedded database in ${dataDir}`;
const stop = new AbortController();
let writing = false;
// Until the restore writes, there is nothing to undo; after that it stops between two steps and removes what it wrote,
// as after any failure.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    if (!writing) process.exit(130);
    stop.abort();
  });
}

try {
  const manifest = await verifyArchiveFile(file);
  // Refused before the target is looked at: a backup this version cannot read is not worth emptying a directory for.
  migrationsUpTo(migrationsFolder, manifest.schema);
  await checkTarget(target);
  writing = true;
  const restored = await restoreArchive(file, manifest, target, { migrationsFolder, signal: stop.signal });
  const source = manifest.database.kind === "pglite" ? "embedded database (PGlite)" : "PostgreSQL";
  console.log(
    `Restored the backup of ${manifest.createdAt} (${source}, migration ${manifest.schema.migration}) into ${where}: ${restored.tables} tables, ${restored.rows} rows, ${restored.repositories === 1 ? "1 repository" : `${restored.repositories} repositories`}.`,
  );
  console.log("Start the server with these settings (npm start); it applies any migration newer than the backup's as it starts.");
  for (const name of manifest.environmentSecrets) {
    console.log(`The backed-up server took ${name} from its environment: start this one with the same value, or browser sessions from before the backup end.`);
  }
} catch (error) {
  if (error instanceof ArchiveError) fail(`${file} cannot be restored: ${error.message}.`, exitArchiveRefused);
  if (error instanceof TargetError) fail(`Not restored: ${error.message}`, exitTargetRefused);
  if (error.name === "AbortError") fail("Restore interrupted: nothing was left behind.", 130);
  fail(`The restore failed, and nothing was left behind: ${error.message}`, exitFailed);
}
