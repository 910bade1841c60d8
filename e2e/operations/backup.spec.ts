import { expect, request as newRequest, test, type APIRequestContext } from "@playwright/test";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import postgres from "postgres";
import { ArchiveParser, ArchiveWriter, type BackupManifest } from "../../lib/backup/archive.mjs";
import { journalOf } from "../../lib/backup/schema-version.mjs";
import { alertmanagerWebhook, bearer, createIntegration, listAlerts, postAlert, receiverPath, type Integration } from "../support/alerts";
import { asToken, createProject, createUser, rootToken } from "../support/api";
import { e2eDatabaseUrl, serverDataDir } from "../support/constants";
import { GitSandbox, pushMain, remoteUrl } from "../support/git";
import { passwordToken, signIn } from "../support/oauth";

interface ScriptRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run backup` or `npm run restore` as an operator runs it, with the environment of the server it is for. */
function operatorScript(script: "backup" | "restore", args: string[], env: Record<string, string>): Promise<ScriptRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [`lib/backup/${script}-command.mjs`, ...args], { env: onlyThese(env), encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/**
 * An environment of these settings alone (and PATH), so none of the test run's own variables (a DATABASE_URL, say)
 * decides where a script or server writes.
 */
function onlyThese(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, NODE_ENV: "production", ...env };
}

const runId = process.env.E2E_RUN_ID ?? "";
const portBase = Number(process.env.E2E_PORT_BASE ?? 3210);

/** Where each project's restored server runs: its own directory, database and port. */
function restoredTarget(projectName: string) {
  const dataDir = `.e2e-data/restored-${projectName}-${runId}`;
  const databaseUrl = projectName === "postgres" ? e2eDatabaseUrl("e2e_restored") : null;
  const port = portBase + (projectName === "postgres" ? 8 : 7);
  const env: Record<string, string> = { DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  return { dataDir, databaseUrl, port, baseURL: `http://localhost:${port}`, env, logFile: `.e2e-data/server-restored-${projectName}-${runId}.log` };
}

/** The production server on the restored data, as `npm start` runs it; resolves once it is ready. */
async function startServer(target: ReturnType<typeof restoredTarget>): Promise<ChildProcess> {
  const server = spawn(process.execPath, ["server.mjs", "-p", String(target.port)], {
    env: onlyThese({ LOG_LEVEL: "info", EXTERNAL_URL: target.baseURL, ...target.env }),
    stdio: ["ignore", openSync(target.logFile, "a"), openSync(target.logFile, "a")],
  });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the restored server stopped (${server.exitCode}):\n${readFileSync(target.logFile, "utf8")}`);
    const ready = await fetch(`${target.baseURL}/-/readiness`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return server;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  server.kill();
  throw new Error(`the restored server was not ready within 90 s:\n${readFileSync(target.logFile, "utf8")}`);
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  await exited;
}

async function dropDatabase(url: string): Promise<void> {
  const server = new URL(url);
  const name = server.pathname.slice(1);
  server.pathname = "/postgres";
  const sql = postgres(server.toString(), { max: 1, onnotice: () => {} });
  await sql.unsafe(`drop database if exists "${name}" with (force)`).finally(() => sql.end());
}

/** Every issue of a project, through the API's pages. */
async function issueIids(request: APIRequestContext, token: string, projectId: number): Promise<number[]> {
  const iids: number[] = [];
  for (let page = 1; ; page += 1) {
    const response = await request.get(`/api/v4/projects/${projectId}/issues?per_page=100&page=${page}`, { headers: asToken(token) });
    expect(response.status()).toBe(200);
    const issues = (await response.json()) as { iid: number }[];
    iids.push(...issues.map((issue) => issue.iid));
    if (issues.length < 100) return iids.sort((a, b) => a - b);
  }
}

/** The ids of the issues a project's "created" events name. */
async function createdIssueEvents(request: APIRequestContext, token: string, projectId: number): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page += 1) {
    const response = await request.get(`/api/v4/projects/${projectId}/events?action=created&target_type=issue&per_page=100&page=${page}`, { headers: asToken(token) });
    expect(response.status()).toBe(200);
    const events = (await response.json()) as { target_id: number }[];
    ids.push(...events.map((event) => event.target_id));
    if (events.length < 100) return ids.sort((a, b) => a - b);
  }
}

/** The same archive with entries (or the manifest) changed, written as the server writes archives. */
async function rewrittenArchive(file: string, target: string, change: { entry?: string; manifest?: (manifest: BackupManifest) => BackupManifest }) {
  const parser = new ArchiveParser();
  const entries = parser.push(readFileSync(file));
  parser.end();
  const chunks: Buffer[] = [];
  const output = new PassThrough();
  output.on("data", (chunk: Buffer) => chunks.push(chunk));
  const manifest = JSON.parse(entries.find((entry) => entry.name === "manifest.json")!.data.toString("utf8")) as BackupManifest;
  const writer = new ArchiveWriter(output, new Date(manifest.createdAt));
  for (const entry of entries) {
    if (entry.name.startsWith("manifest.json")) continue;
    await writer.add(entry.name, entry.data);
  }
  const { entries: _listed, ...rest } = change.manifest ? change.manifest(manifest) : manifest;
  await writer.finish(rest);
  writeFileSync(target, Buffer.concat(chunks));
}

test.describe("backup and restore", () => {
  test("a backup of the running server, taken under writes, restores into a fresh database where every account, token, session, alert, event and repository works", async ({ request, baseURL }, testInfo) => {
    // Two processes of its own (the restore, then a server) on top of the run's: a fresh embedded database alone costs seconds of CPU.
    test.setTimeout(240_000);
    const projectName = testInfo.project.name;
    const sourceEnv: Record<string, string> = { DATA_DIR: serverDataDir(projectName) };
    const target = restoredTarget(projectName);
    const archive = `.e2e-data/backup-${projectName}-${runId}.tar`;
    const git = new GitSandbox();
    let restoredServer: ChildProcess | undefined;
    try {
      // What a person has before the backup: an account with a personal access token, an OAuth token, a browser
      // session, a project with a repository, an alert integration (whose token is kept encrypted) and an alert.
      const person = await createUser(request);
      const oauth = await passwordToken(request, person, { scope: "api" });
      const browser = await newRequest.newContext({ baseURL });
      await signIn(browser, person.username, person.password);
      const sessionCookie = (await browser.storageState()).cookies.find((cookie) => cookie.name.endsWith("next-auth.session-token"));
      expect(sessionCookie).toBeDefined();
      await browser.dispose();
      const project = await createProject(request, person.token);
      const remote = (base: string) => remoteUrl(base, project.path_with_namespace, { password: person.token });
      const work = await pushMain(git, remote(baseURL!), 2);
      const pushedBefore = await git.ok(["rev-parse", "HEAD"], work);
      const integration = await createIntegration(request, person.token, project.id, { type: "prometheus" });
      expect((await postAlert(request, receiverPath(integration), alertmanagerWebhook("firing", ["DiskFull"]), bearer(integration.token))).status()).toBe(201);
      const keys = await (await request.get("/oauth/discovery/keys")).text();

      // Writes while the backup runs: issues created one after another on two connections, and a push.
      const createdBefore: number[] = [];
      const createdDuring: number[] = [];
      let backupStarted = false;
      let writing = true;
      const createIssues = async () => {
        for (let index = 0; writing; index += 1) {
          const response = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(person.token), data: { title: `Written during the backup ${index}` } });
          expect(response.status()).toBe(201);
          const startedBefore = !backupStarted;
          (startedBefore ? createdBefore : createdDuring).push(((await response.json()) as { iid: number }).iid);
        }
      };
      const writers = [createIssues(), createIssues()];
      await expect.poll(() => createdBefore.length).toBeGreaterThan(3);
      await git.commit(work, "file.txt", "during\n", "Pushed during the backup");
      const pushedDuring = await git.ok(["rev-parse", "HEAD"], work);
      backupStarted = true;
      const pushing = git.ok(["push", "--quiet", "origin", "main"], work);
      const backup = await operatorScript("backup", [archive], sourceEnv);
      writing = false;
      await Promise.all([...writers, pushing]);
      expect(backup.stderr).toBe("");
      expect(backup.status).toBe(0);
      const kind = projectName === "postgres" ? "PostgreSQL database" : "embedded database \\(PGlite\\)";
      const latest = journalOf("drizzle").at(-1)!.tag;
      expect(backup.stdout).toMatch(
        new RegExp(`^Backup written to ${archive.replaceAll(".", "\\.")} \\(\\d+\\.\\d (KiB|MiB)\\) in \\d+\\.\\d s: the ${kind} at migration ${latest} \\(\\d+ tables, \\d+ rows\\) and \\d+ repositor(y|ies)\\.\\n`),
      );
      expect(createdDuring.length).toBeGreaterThan(0);

      // Restored into a fresh data directory or database, and started.
      if (target.databaseUrl) await createDatabase(target.databaseUrl);
      const restore = await operatorScript("restore", [archive], target.env);
      expect(restore.stderr).toBe("");
      expect(restore.status).toBe(0);
      expect(restore.stdout).toMatch(/^Restored the backup of \S+ \(.+, migration \S+\) into .+: \d+ tables, \d+ rows, \d+ repositor(y|ies)\.\n/);
      restoredServer = await startServer(target);
      const restored = await newRequest.newContext({ baseURL: target.baseURL });

      // The account and every credential it had.
      const me = await restored.get("/api/v4/user", { headers: asToken(person.token) });
      expect(me.status()).toBe(200);
      expect(await me.json()).toMatchObject({ id: person.id, username: person.username });
      const viaOAuth = await restored.get("/api/v4/user", { headers: { Authorization: `Bearer ${oauth.access_token}` } });
      expect(viaOAuth.status()).toBe(200);
      expect(await viaOAuth.json()).toMatchObject({ username: person.username });
      const refreshed = await restored.post("/oauth/token", { form: { grant_type: "refresh_token", refresh_token: oauth.refresh_token } });
      expect(refreshed.status(), await refreshed.text()).toBe(200);
      const session = await restored.get("/api/auth/session", { headers: { Cookie: `${sessionCookie!.name}=${sessionCookie!.value}` } });
      expect(((await session.json()) as { user?: { username?: string } }).user?.username).toBe(person.username);
      const profile = await restored.get("/profile", { headers: { Cookie: `${sessionCookie!.name}=${sessionCookie!.value}` }, maxRedirects: 0 });
      expect(profile.status()).toBe(200);
      expect((await restored.get(`/api/v4/users/${person.id}`, { headers: asToken(rootToken) })).status()).toBe(200);
      // ID tokens are signed with the same key, and the integration's token still decrypts.
      expect(await (await restored.get("/oauth/discovery/keys")).text()).toBe(keys);
      const integrations = (await (await restored.get(`/api/v4/projects/${project.id}/alert_management/integrations`, { headers: asToken(person.token) })).json()) as Integration[];
      expect(integrations.map((kept) => [kept.id, kept.token])).toEqual([[integration.id, integration.token]]);
      expect((await listAlerts(restored, person.token, project.id)).map((alert) => alert.title)).toEqual(["DiskFull"]);

      // One snapshot: every issue is there with its event and counted in the project, those written before the backup
      // began among them, and nothing that was never written.
      const iids = await issueIids(restored, person.token, project.id);
      for (const iid of createdBefore) expect(iids).toContain(iid);
      for (const iid of iids) expect([...createdBefore, ...createdDuring]).toContain(iid);
      const issueIds = await Promise.all(
        iids.map(async (iid) => ((await (await restored.get(`/api/v4/projects/${project.id}/issues/${iid}`, { headers: asToken(person.token) })).json()) as { id: number }).id),
      );
      expect(await createdIssueEvents(restored, person.token, project.id)).toEqual(issueIds.sort((a, b) => a - b));
      const restoredProject = (await (await restored.get(`/api/v4/projects/${project.id}`, { headers: asToken(person.token) })).json()) as { open_issues_count: number };
      expect(restoredProject.open_issues_count).toBe(iids.length);
      const pushEvents = (await (await restored.get(`/api/v4/projects/${project.id}/events?action=pushed`, { headers: asToken(person.token) })).json()) as unknown[];
      expect(pushEvents.length).toBeGreaterThan(0);
      // The restored server goes on numbering where the backup left off.
      const next = await restored.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(person.token), data: { title: "After the restore" } });
      expect(next.status()).toBe(201);
      expect(((await next.json()) as { iid: number }).iid).toBe(Math.max(...iids) + 1);

      // The repository clones with its commits: the push during the backup is there or not, whole either way.
      await git.ok(["clone", "--quiet", remote(target.baseURL), git.dir("restored")]);
      const restoredHead = await git.ok(["rev-parse", "HEAD"], git.dir("restored"));
      expect([pushedBefore, pushedDuring]).toContain(restoredHead);
      expect(await git.ok(["cat-file", "-t", pushedBefore], git.dir("restored"))).toBe("commit");
      await restored.dispose();

      // Refused: a target whose server runs, then (stopped) one that is no longer empty.
      const again = await operatorScript("restore", [archive], target.env);
      expect(again).toEqual({
        status: 4,
        stdout: "",
        stderr: `Not restored: a server is running with DATA_DIR=${target.dataDir} (it answers at ${target.dataDir}/operator.sock). Stop it first: restoring writes what it reads.\n`,
      });
      await stopServer(restoredServer);
      const notEmpty = await operatorScript("restore", [archive], target.env);
      expect(notEmpty.status).toBe(4);
      expect(notEmpty.stderr).toMatch(
        projectName === "postgres"
          ? /^Not restored: the database e2e_restored_\d+ on [\w.]+:\d+ is not empty \(it holds drizzle\.__drizzle_migrations, .+\)\. Restore into an empty database: create one \(createdb <name>\) and point DATABASE_URL at it\.\n$/
          : new RegExp(`^Not restored: DATA_DIR=${target.dataDir.replaceAll(".", "\\.")} is not empty \\(it holds .+\\)\\. Restore into an empty or new directory: point DATA_DIR at one, or move this one away\\.\\n$`),
      );
    } finally {
      if (restoredServer) await stopServer(restoredServer);
      git.dispose();
      if (target.databaseUrl) await dropDatabase(target.databaseUrl);
      rmSync(target.dataDir, { recursive: true, force: true });
      rmSync(archive, { force: true });
    }
  });

  test("a damaged archive, or one from a newer version, is refused before anything is written", async ({ request }, testInfo) => {
    test.setTimeout(60_000);
    const projectName = testInfo.project.name;
    const archive = `.e2e-data/backup-refusals-${projectName}-${runId}.tar`;
    const emptyDir = `.e2e-data/never-restored-${projectName}-${runId}`;
    try {
      await createProject(request, rootToken);
      const backup = await operatorScript("backup", [archive], { DATA_DIR: serverDataDir(projectName) });
      expect(backup.status, backup.stderr).toBe(0);
      // An existing file is kept unless --force.
      expect(await operatorScript("backup", [archive], { DATA_DIR: serverDataDir(projectName) })).toMatchObject({
        status: 2,
        stderr: `${archive} exists: name another file, or add --force to replace it.\n`,
      });

      // One bit flipped in a table's rows.
      const damaged = `${archive}.damaged`;
      copyFileSync(archive, damaged);
      const bytes = readFileSync(damaged);
      const [first] = new ArchiveParser().push(bytes);
      // The first entry's data follows its 512-byte header.
      bytes.writeUInt8(bytes.readUInt8(512 + 5) ^ 1, 512 + 5);
      writeFileSync(damaged, bytes);
      expect(await operatorScript("restore", [damaged], { DATA_DIR: emptyDir })).toEqual({
        status: 3,
        stdout: "",
        stderr: `${damaged} cannot be restored: it is damaged: ${first!.name} does not match its checksum.\n`,
      });

      // Cut short, as a backup copied before it was whole.
      const truncated = `${archive}.truncated`;
      writeFileSync(truncated, readFileSync(archive).subarray(0, 4096));
      expect(await operatorScript("restore", [truncated], { DATA_DIR: emptyDir })).toMatchObject({
        status: 3,
        stderr: `${truncated} cannot be restored: it is incomplete: it ends in the middle (was it copied whole?).\n`,
      });

      // Taken by a version with a migration this one does not have.
      const newer = `${archive}.newer`;
      const latest = journalOf("drizzle").at(-1)!;
      await rewrittenArchive(archive, newer, { manifest: (manifest) => ({ ...manifest, schema: { migration: "9999_from_the_future", createdAt: latest.when + 1 } }) });
      expect(await operatorScript("restore", [newer], { DATA_DIR: emptyDir })).toEqual({
        status: 3,
        stdout: "",
        stderr: `${newer} cannot be restored: its database schema is newer than this version of the service knows: the backup is at migration 9999_from_the_future, this version goes up to ${latest.tag}. Restore it with the version of the service that made it, or a newer one.\n`,
      });
      // Nothing was written anywhere.
      expect(existsSync(emptyDir)).toBe(false);

      // Over HTTP, whatever a client sends, there is no such route.
      const forged = await request.get("/-/operator/backup", { headers: { "X-Operator-Socket": "0".repeat(64) } });
      expect(forged.status()).toBe(404);
      expect(await forged.text()).toBe("404 Not Found");

      // Usage, and no server to back up.
      expect(await operatorScript("restore", [], {})).toMatchObject({ status: 2, stderr: expect.stringMatching(/^Name the backup file to restore\.\n\nUsage: npm run restore -- <file>\n/) });
      expect(await operatorScript("backup", ["--help"], {})).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Usage: npm run backup -- <file> \[--force\]\n/) });
      expect(await operatorScript("backup", [`${archive}.none`], { DATA_DIR: ".e2e-data/no-server-here" })).toEqual({
        status: 1,
        stdout: "",
        stderr: "No server is running with DATA_DIR=.e2e-data/no-server-here (nothing answers at .e2e-data/no-server-here/operator.sock). Start it with npm start, then run this again.\n",
      });
    } finally {
      for (const suffix of ["", ".damaged", ".truncated", ".newer"]) rmSync(`${archive}${suffix}`, { force: true });
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });
});

async function createDatabase(url: string): Promise<void> {
  const run = await new Promise<ScriptRun>((resolve) => {
    execFile(process.execPath, ["e2e/support/create-database.mjs", url], (error, stdout, stderr) => resolve({ status: error ? 1 : 0, stdout, stderr }));
  });
  expect(run.status, run.stderr).toBe(0);
}
