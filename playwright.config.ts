import { existsSync } from "node:fs";
import { chromium, defineConfig, type PlaywrightTestConfig } from "@playwright/test";
import { e2eDatabaseUrl, renderFloodServer, rootPassword, rootToken, serverDataDir, serverLogFile, tightThrottles } from "./e2e/support/constants";
import { ensureMetadataDocumentCertificate, metadataDocumentTls } from "./e2e/support/metadata-tls";

/**
 * E2E runs against the production build (`next build` happens in `npm run test:e2e` first) on fresh databases:
 * an embedded PGlite always, and PostgreSQL too when TEST_DATABASE_URL is set. Each database gets its own server.
 */
/**
 * The browser: Debian's Chromium (or CHROMIUM_PATH) where there is one, else the Chromium Playwright downloads
 * (`npx playwright install chromium`), for machines without Debian's package but with the internet.
 */
const debianChromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
function browserExecutable(): string | undefined {
  if (existsSync(debianChromium)) return debianChromium;
  if (!process.env.CHROMIUM_PATH && existsSync(chromium.executablePath())) return undefined;
  throw new Error(
    `E2E tests need Chromium: Debian's at ${debianChromium} (\`apt-get install -y chromium\`), another one named by ` +
      "CHROMIUM_PATH, or Playwright's own (`npx playwright install chromium`, where downloads work).",
  );
}
const chromiumPath = browserExecutable();

// Workers re-load this file; the run id set by the main process keeps their database names the same.
process.env.E2E_RUN_ID ??= String(Date.now());
const runId = process.env.E2E_RUN_ID;


ensureMetadataDocumentCertificate();

const serverEnv = {
  NODE_ENV: "production",
  INITIAL_ROOT_PASSWORD: rootPassword,
  INITIAL_ROOT_TOKEN: rootToken,
  SIGN_IN_MAX_ATTEMPTS: "5",
  LOG_LEVEL: "info",
  // The suites play MCP clients that publish their metadata documents on this machine, over http or over https with
  // a certificate of their own.
  OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES: "true",
  NODE_EXTRA_CA_CERTS: metadataDocumentTls.certPath,
  // Every API answer is held to its route's declared response (docs/openapi.json): one that departs fails its test.
  API_RESPONSE_CHECK: "true",
};

/**
 * The suites drive each server from one address with a few accounts, far above what the throttles against guessing
 * allow a person; these servers count every such attempt all the same, with room for the whole run. The API and
 * `/oauth/token` throttles keep their defaults (off, as on GitLab), so the suites run as any script would.
 */
const roomyThrottles = {
  THROTTLE_FAILED_SIGN_INS_PER_IP: "1000",
  THROTTLE_PROTECTED_PATHS_PER_IP: "100000",
  THROTTLE_MAILS_PER_RECIPIENT: "1000",
  THROTTLE_DEVICE_CODE_ATTEMPTS: "1000",
  THROTTLE_WEB_HOOK_TESTS: "1000",
  THROTTLE_WEB_HOOK_RESENDS: "1000",
  THROTTLE_INTEGRATION_TESTS: "1000",
};

/** The throttle specs get a server of their own, with small limits (`tightThrottles`). */
const throttleSpecs = /security\/throttles\.spec\.ts$/;
/** So does the flood of Markdown saves, with one render thread (`renderFloodServer`). */
const renderFloodSpecs = /security\/render-flood\.spec\.ts$/;
/** And the instance setting that adds `iss` to every authorization response: turned on, it would change other specs' answers. */
const issSettingSpecs = /oauth\/iss-setting\.spec\.ts$/;
/**
 * And the specs that change the instance's settings through the API, which other specs' answers depend on: the API's,
 * then (on the same server, once those are done, so the two never change the settings at once) python-gitlab's.
 */
const applicationSettingsSpecs = /api\/application-settings\.spec\.ts$/;
const applicationSettingsClientSpecs = /clients\/python-gitlab-settings\.spec\.ts$/;
/** The container image's test builds the image and runs the server in it: no e2e server takes part. */
const containerSpecs = /operations\/container\.spec\.ts$/;
/**
 * It runs with the rest by default. `E2E_CONTAINER=only` runs it alone, without the e2e servers, and `elsewhere` leaves
 * it out: CI runs it beside the rest of its run from the start (.ci/run).
 */
const containerRuns = ["with-the-rest", "only", "elsewhere"] as const;
const containerRun = process.env.E2E_CONTAINER ?? "with-the-rest";
if (!(containerRuns as readonly string[]).includes(containerRun)) {
  throw new Error(`E2E_CONTAINER must be one of ${containerRuns.join(", ")}, not ${containerRun}`);
}
/** Specs that run only on a server of their own. */
const ownServerSpecs = [throttleSpecs, renderFloodSpecs, issSettingSpecs, applicationSettingsSpecs, applicationSettingsClientSpecs, containerSpecs];

interface Target {
  name: string;
  port: number;
  env: Record<string, string>;
  prepare?: string;
  /** Runs only these specs (default: all but those of `ownServerSpecs`, which no other server runs). */
  testMatch?: RegExp;
  /** And not these. */
  testIgnore?: RegExp[];
}

// Several checkouts on one machine can run their suites side by side on different port bases.
const portBase = Number(process.env.E2E_PORT_BASE ?? 3210);

/** A fresh PostgreSQL database of the run, created before its server starts. */
function postgresDatabase(name: string): { url: string; prepare: string } | null {
  const url = e2eDatabaseUrl(name, runId);
  return url ? { url, prepare: `node e2e/support/create-database.mjs "${url}" && ` } : null;
}

const targets: Target[] = [{ name: "pglite", port: portBase, env: { ...roomyThrottles, DATA_DIR: serverDataDir("pglite", runId) } }];
const postgres = postgresDatabase("e2e");
if (postgres) {
  targets.push({
    name: "postgres",
    port: portBase + 1,
    // Its own data directory too: git repositories live there, named by project id, which a fresh database reuses.
    env: { ...roomyThrottles, DATABASE_URL: postgres.url, DATA_DIR: serverDataDir("postgres", runId) },
    prepare: postgres.prepare,
    // The browser specs drive pages, which call the same domain verbs the integration tests and the API specs here run
    // on both databases; they run once, on the embedded default.
    testIgnore: [/\/browser\/[^/]+\.spec\.ts$/],
  });
}
// The production server answers the machine-facing routes through its direct lane (server.mjs). The suites of those
// routes also run against a server that sends everything through the framework, so both lanes give the same answers.
// The client libraries' suites (and the relying parties') call the same routes the protocol suites pin down, through
// other processes; they run on the direct lane only.
targets.push({
  name: "framework-lane",
  port: portBase + 3,
  env: { ...roomyThrottles, DIRECT_DISPATCH: "off", DATA_DIR: serverDataDir("framework-lane", runId) },
  testMatch: /e2e\/(api|oauth|alertmanager|alerts|mcp)\/.*\.spec\.ts$/,
  testIgnore: [/oauth\/relying-parties\.spec\.ts$/],
});
// On PostgreSQL when there is one: there the counters live in the database, as replicas share them.
const throttledPostgres = postgresDatabase("e2e_throttles");
targets.push({
  name: "throttles",
  port: portBase + 2,
  env: {
    ...tightThrottles,
    DATA_DIR: serverDataDir("throttles", runId),
    ...(throttledPostgres ? { DATABASE_URL: throttledPostgres.url } : {}),
  },
  prepare: throttledPostgres?.prepare,
  testMatch: throttleSpecs,
});
targets.push({
  name: "oauth-iss",
  port: portBase + 5,
  env: { ...roomyThrottles, DATA_DIR: serverDataDir("oauth-iss", runId) },
  testMatch: issSettingSpecs,
});
targets.push({
  name: "application-settings",
  port: portBase + 6,
  env: { ...roomyThrottles, DATA_DIR: serverDataDir("application-settings", runId) },
  testMatch: applicationSettingsSpecs,
});
targets.push({
  name: "render-flood",
  port: portBase + 4,
  env: { ...roomyThrottles, ...renderFloodServer, DATA_DIR: serverDataDir("render-flood", runId) },
  testMatch: renderFloodSpecs,
});

const launchOptions = {
  ...(chromiumPath ? { executablePath: chromiumPath } : {}),
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

const otherProjects: NonNullable<PlaywrightTestConfig["projects"]> = [
  ...targets.map((target) => ({
    name: target.name,
    use: { baseURL: `http://localhost:${target.port}`, launchOptions },
    ...(target.testMatch ? { testMatch: target.testMatch } : {}),
    testIgnore: [...ownServerSpecs.filter((specs) => specs !== target.testMatch), ...(target.testIgnore ?? [])],
  })),
  {
    name: "application-settings-clients",
    use: { baseURL: `http://localhost:${portBase + 6}`, launchOptions },
    testMatch: applicationSettingsClientSpecs,
    dependencies: ["application-settings"],
  },
];

const webServers: NonNullable<PlaywrightTestConfig["webServer"]> = targets.map((target) => ({
  // The production server, as `npm start` runs it, with a keep-alive longer than the test client's, so the server
  // never closes a connection the client is reusing. Its output goes to a file that tests read (no secret may ever
  // appear in it) and people debug with.
  command: `mkdir -p .e2e-data && ${target.prepare ?? ""}npm start -- -p ${target.port} --keepAliveTimeout 70000 >> ${serverLogFile(target.name, runId)} 2>&1`,
  url: `http://localhost:${target.port}/-/readiness`,
  reuseExistingServer: false,
  timeout: 120_000,
  stdout: "ignore",
  stderr: "pipe",
  env: { ...serverEnv, ...target.env, EXTERNAL_URL: `http://localhost:${target.port}`, PORT: String(target.port) },
}));

const config: PlaywrightTestConfig = {
  testDir: "./e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // One approved image per page for every database: the pages must look the same whichever one serves them.
  snapshotPathTemplate: "{testDir}/{testFileDir}/{testFileName}-snapshots/{arg}{ext}",
  fullyParallel: true,
  workers: 2,
  forbidOnly: !!process.env.CI,
  reporter: [["list"]],
  use: { trace: "retain-on-failure", launchOptions },
  // Its own output folder when run alone: a run beside it would empty the shared one as it starts.
  outputDir: containerRun === "only" ? "test-results-container" : "test-results",
  projects: [
    // First, so a worker takes it as the run begins: it is the run's longest test (minutes of image building, mostly
    // at a lower priority than the servers), and the other worker gets through the rest meanwhile.
    ...(containerRun === "elsewhere" ? [] : [{ name: "container", testMatch: containerSpecs }]),
    ...(containerRun === "only" ? [] : otherProjects),
  ],
  webServer: containerRun === "only" ? [] : webServers,
};

export default defineConfig(config);
