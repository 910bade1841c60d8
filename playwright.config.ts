import { existsSync } from "node:fs";
import { defineConfig, type PlaywrightTestConfig } from "@playwright/test";
import { e2eDatabaseUrl, renderFloodServer, rootPassword, rootToken, serverLogFile, tightThrottles } from "./e2e/support/constants";
import { ensureMetadataDocumentCertificate, metadataDocumentTls } from "./e2e/support/metadata-tls";

/**
 * E2E runs against the production build (`next build` happens in `npm run test:e2e` first) on fresh databases:
 * an embedded PGlite always, and PostgreSQL too when TEST_DATABASE_URL is set. Each database gets its own server.
 */
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(chromiumPath)) {
  throw new Error(
    `E2E tests need Debian's Chromium at ${chromiumPath} (Playwright cannot download browsers here). ` +
      "Install it with `apt-get install -y chromium`, or point CHROMIUM_PATH at another Chromium binary.",
  );
}

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
  // The webhook specs receive deliveries on this machine.
  ALLOW_LOCAL_REQUESTS_FROM_WEB_HOOKS: "true",
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
};

/** The throttle specs get a server of their own, with small limits (`tightThrottles`). */
const throttleSpecs = /security\/throttles\.spec\.ts$/;
/** So does the flood of Markdown saves, with one render thread (`renderFloodServer`). */
const renderFloodSpecs = /security\/render-flood\.spec\.ts$/;
/** And the instance setting that adds `iss` to every authorization response: turned on, it would change other specs' answers. */
const issSettingSpecs = /oauth\/iss-setting\.spec\.ts$/;
/** Specs that run only on a server of their own. */
const ownServerSpecs = [throttleSpecs, renderFloodSpecs, issSettingSpecs];

interface Target {
  name: string;
  port: number;
  env: Record<string, string>;
  prepare?: string;
  /** Runs only these specs (default: all but those of `ownServerSpecs`, which no other server runs). */
  testMatch?: RegExp;
}

// Several checkouts on one machine can run their suites side by side on different port bases.
const portBase = Number(process.env.E2E_PORT_BASE ?? 3210);

/** A fresh PostgreSQL database of the run, created before its server starts. */
function postgresDatabase(name: string): { url: string; prepare: string } | null {
  const url = e2eDatabaseUrl(name, runId);
  return url ? { url, prepare: `node e2e/support/create-database.mjs "${url}" && ` } : null;
}

const targets: Target[] = [{ name: "pglite", port: portBase, env: { ...roomyThrottles, DATA_DIR: `.e2e-data/pglite-${runId}` } }];
const postgres = postgresDatabase("e2e");
if (postgres) {
  targets.push({
    name: "postgres",
    port: portBase + 1,
    // Its own data directory too: git repositories live there, named by project id, which a fresh database reuses.
    env: { ...roomyThrottles, DATABASE_URL: postgres.url, DATA_DIR: `.e2e-data/postgres-${runId}` },
    prepare: postgres.prepare,
  });
}
// The production server answers the machine-facing routes through its direct lane (server.mjs). The suites of those
// routes also run against a server that sends everything through the framework, so both lanes give the same answers.
targets.push({
  name: "framework-lane",
  port: portBase + 3,
  env: { ...roomyThrottles, DIRECT_DISPATCH: "off", DATA_DIR: `.e2e-data/framework-lane-${runId}` },
  testMatch: /e2e\/(api|oauth|clients|alertmanager|alerts|mcp)\/.*\.spec\.ts$/,
});
// On PostgreSQL when there is one: there the counters live in the database, as replicas share them.
const throttledPostgres = postgresDatabase("e2e_throttles");
targets.push({
  name: "throttles",
  port: portBase + 2,
  env: {
    ...tightThrottles,
    DATA_DIR: `.e2e-data/throttles-${runId}`,
    ...(throttledPostgres ? { DATABASE_URL: throttledPostgres.url } : {}),
  },
  prepare: throttledPostgres?.prepare,
  testMatch: throttleSpecs,
});
targets.push({
  name: "oauth-iss",
  port: portBase + 5,
  env: { ...roomyThrottles, DATA_DIR: `.e2e-data/oauth-iss-${runId}` },
  testMatch: issSettingSpecs,
});
targets.push({
  name: "render-flood",
  port: portBase + 4,
  env: { ...roomyThrottles, ...renderFloodServer, DATA_DIR: `.e2e-data/render-flood-${runId}` },
  testMatch: renderFloodSpecs,
});

const launchOptions = {
  executablePath: chromiumPath,
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
  projects: targets.map((target) => ({
    name: target.name,
    use: { baseURL: `http://localhost:${target.port}`, launchOptions },
    ...(target.testMatch ? { testMatch: target.testMatch } : {}),
    testIgnore: ownServerSpecs.filter((specs) => specs !== target.testMatch),
  })),
  webServer: targets.map((target) => ({
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
  })),
};

export default defineConfig(config);
