import { startedKey, stopServiceKey } from "./lib/http/lane-keys.mjs";

/**
 * Runs once per server process before it serves requests: applies migrations and bootstraps the administrator.
 * `startService` stops the process on any failure; a server on an unmigrated database would only fail later.
 * Then it tells the production server's direct lane (lib/http/direct-lane.mjs) that route handlers may be called, and
 * hands the production server (server.mjs) what to run when it stops.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startService, stopService } = await import("./lib/startup");
  await startService();
  (globalThis as Record<symbol, unknown>)[stopServiceKey] = stopService;
  (globalThis as Record<symbol, unknown>)[startedKey] = true;
}
