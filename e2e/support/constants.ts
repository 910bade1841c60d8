/** The administrator the e2e servers bootstrap (INITIAL_ROOT_PASSWORD / INITIAL_ROOT_TOKEN). */
export const rootPassword = "e2e-root-password";
export const rootToken = "e2e-root-token-0123456789abcdef";

/** Where the e2e server of a Playwright project (`pglite`, `postgres`) writes its output during run `runId`. */
export function serverLogFile(projectName: string, runId: string = process.env.E2E_RUN_ID ?? ""): string {
  return `.e2e-data/server-${projectName}-${runId}.log`;
}

/** The data directory (DATA_DIR) of the e2e server of a Playwright project during run `runId`. */
export function serverDataDir(projectName: string, runId: string = process.env.E2E_RUN_ID ?? ""): string {
  return `.e2e-data/${projectName}-${runId}`;
}

/** The limits of the server that runs e2e/security/throttles.spec.ts (the other servers have room for whole runs). */
export const tightThrottles = {
  THROTTLE_FAILED_SIGN_INS_PER_IP: "3",
  THROTTLE_PROTECTED_PATHS_PER_IP: "3",
  THROTTLE_DEVICE_CODE_ATTEMPTS: "3",
  THROTTLE_OAUTH_TOKEN_PER_CLIENT: "5",
  THROTTLE_UNAUTHENTICATED_API_PER_IP: "5",
  THROTTLE_AUTHENTICATED_API_PER_USER: "20",
} as const;

/**
 * The render settings of the server that runs e2e/security/render-flood.spec.ts: one render thread that a slow document
 * holds for 10 s, long enough to fill the waiting line behind it (the line is the whole process's, so the flood gets a
 * server of its own and no other spec's save is refused meanwhile).
 */
export const renderFloodServer = { MARKDOWN_RENDER_THREADS: "1", MARKDOWN_RENDER_TIMEOUT_MS: "10000" } as const;

/**
 * The PostgreSQL database of run `runId`'s server `name` (`e2e`, `e2e_throttles`) when the run has one
 * (TEST_DATABASE_URL), so a test can set up what no API can, such as events written out of order.
 */
export function e2eDatabaseUrl(name: string, runId: string = process.env.E2E_RUN_ID ?? ""): string | null {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return null;
  const url = new URL(serverUrl);
  url.pathname = `/${name}_${runId}`;
  return url.toString();
}
