/** The administrator the e2e servers bootstrap (INITIAL_ROOT_PASSWORD / INITIAL_ROOT_TOKEN). */
export const rootPassword = "e2e-root-password";
export const rootToken = "e2e-root-token-0123456789abcdef";

/** Where the e2e server of a Playwright project (`pglite`, `postgres`) writes its output during run `runId`. */
export function serverLogFile(projectName: string, runId: string = process.env.E2E_RUN_ID ?? ""): string {
  return `.e2e-data/server-${projectName}-${runId}.log`;
}
