// `npm run backup -- <file>`: a backup of the running server, as GitLab's `gitlab-backup create` and `gitea dump`. The
// server writes it (lib/backup/dump.ts), since the embedded database is its alone; this script asks for it through the
// operator socket in DATA_DIR, as `npm run admin` does, checks it as it arrives, and puts it in place only once it is
// whole: it is written to a temporary file beside <file>, flushed to disk, then renamed.
import { randomBytes } from "node:crypto";
import { open, rename, rm, stat } from "node:fs/promises";
import { request } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { operatorSocketFile } from "../http/lane-keys.mjs";
import { ArchiveError, ArchiveVerifier } from "./archive.mjs";

// Read as the server reads it (lib/env.ts, which a script cannot load): an empty value counts as unset.
const dataDir = process.env.DATA_DIR || "./.data";

const usage = `Usage: npm run backup -- <file> [--force]

Writes a backup of the running server to <file>: the whole database, read in one consistent snapshot (on either
database), the git repositories, and the secrets that tokens, browser sessions and encrypted integration settings
depend on. The server goes on answering meanwhile (with the embedded database, requests wait while its tables are
read). The file appears only once the backup is complete and checked; it holds the instance's secrets, so it is
readable by its owner only. Restore it with npm run restore.

  --force   replace <file> if it exists

Runs against the server started with the same DATA_DIR (now: ${dataDir}).
Exit status: 0 written; 1 not written (no server, or the backup failed: the message says why); 2 wrong usage.`;

function fail(message, code) {
  console.error(message);
  process.exit(code);
}

function parse() {
  try {
    return parseArgs({ allowPositionals: true, options: { force: { type: "boolean" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    return fail(`${error.message}\n\n${usage}`, 2);
  }
}

/** Asks the server for the archive; resolves with the response once its status is in. */
function requestBackup(socketPath) {
  return new Promise((resolve, reject) => {
    const outgoing = request({ socketPath, path: "/-/operator/backup", method: "GET" }, resolve);
    outgoing.on("error", reject);
    outgoing.end();
  });
}

function unreachable(error, socketPath) {
  if (error.code === "ENOENT" || error.code === "ECONNREFUSED") {
    return `No server is running with DATA_DIR=${dataDir} (nothing answers at ${socketPath}). Start it with npm start, then run this again.`;
  }
  if (error.code === "EACCES") return `${socketPath} belongs to another account: run this as the account that runs the server.`;
  return `Could not reach the server at ${socketPath}: ${error.message}`;
}

/** Copies the response into `file`, checking the archive as it passes; answers its manifest. */
async function receive(response, file) {
  const verifier = new ArchiveVerifier();
  for await (const chunk of response) {
    verifier.push(chunk);
    await file.write(chunk);
  }
  if (!response.complete) throw new Interrupted();
  return verifier.finish();
}

class Interrupted extends Error {}

function repositories(count) {
  return count === 1 ? "1 repository" : `${count} repositories`;
}

function sizeOf(bytes) {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const { positionals, values } = parse();
if (values.help) {
  console.log(usage);
  process.exit(0);
}
if (positionals.length !== 1) fail(`Name the file to write the backup to.\n\n${usage}`, 2);
const target = path.resolve(positionals[0]);
const existing = await stat(target).catch(() => null);
if (existing?.isDirectory()) fail(`${positionals[0]} is a directory: name the file to write, e.g. ${path.join(positionals[0], "backup.tar")}.`, 2);
if (existing && !values.force) fail(`${positionals[0]} exists: name another file, or add --force to replace it.`, 2);
const directory = await stat(path.dirname(target)).catch(() => null);
if (!directory?.isDirectory()) fail(`The directory ${path.dirname(target)} does not exist: create it first.`, 1);

const socketPath = path.join(dataDir, operatorSocketFile);
const started = performance.now();
let response;
try {
  response = await requestBackup(socketPath);
} catch (error) {
  fail(unreachable(error, socketPath), 1);
}
if (response.statusCode !== 200) {
  const chunks = [];
  for await (const chunk of response) chunks.push(chunk);
  fail(`The server refused the backup (${response.statusCode}): ${Buffer.concat(chunks).toString("utf8").slice(0, 500)}`, 1);
}

// Beside the target, so the rename is atomic: the target is either the previous file or the whole new backup.
const partial = path.join(path.dirname(target), `.${path.basename(target)}.partial-${randomBytes(6).toString("hex")}`);
const file = await open(partial, "wx", 0o600);
const removePartial = () => rm(partial, { force: true });
for (const [signal, status] of [["SIGINT", 130], ["SIGTERM", 143]]) {
  process.once(signal, () => {
    response.destroy();
    void removePartial().finally(() => process.exit(status));
  });
}
let manifest;
try {
  manifest = await receive(response, file);
  await file.sync();
  await file.close();
  await rename(partial, target);
  const parent = await open(path.dirname(target), "r");
  await parent.sync().finally(() => parent.close());
} catch (error) {
  await file.close().catch(() => {});
  await removePartial();
  if (error instanceof ArchiveError) fail(`The backup the server sent is unusable: ${error.message}. Nothing was written; see the server's log.`, 1);
  if (error instanceof Interrupted || error.code === "ECONNRESET" || error.message === "aborted") {
    fail(`The server stopped sending the backup before it was complete (its log says why). Nothing was written to ${positionals[0]}.`, 1);
  }
  fail(`Could not write ${positionals[0]}: ${error.message}. Nothing was written.`, 1);
}

const rows = manifest.database.tables.reduce((sum, table) => sum + table.rows, 0);
const written = await stat(target);
const kind = manifest.database.kind === "pglite" ? "embedded database (PGlite)" : "PostgreSQL database";
console.log(
  `Backup written to ${positionals[0]} (${sizeOf(written.size)}) in ${((performance.now() - started) / 1000).toFixed(1)} s: the ${kind} at migration ${manifest.schema.migration} (${manifest.database.tables.length} tables, ${rows} rows) and ${repositories(manifest.repositories.length)}.`,
);
console.log("It holds the instance's secrets (token signing key, session secret, encryption key): keep it as safe as the database.");
for (const name of manifest.environmentSecrets) {
  console.log(`The server takes ${name} from its environment, so it is not in the backup: keep it with the backup, or sessions signed with it end on restore.`);
}
