/**
 * Runs once per server process before it serves requests: applies migrations and bootstraps the administrator.
 * `startService` stops the process on any failure; a server on an unmigrated database would only fail later.
 * Then it leaves the alert receiver's front door where the production server (server.mjs) looks for it.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startService } = await import("./lib/startup");
  await startService();
  const [{ getDatabase }, { installFrontDoor, receiverFrontDoor }] = await Promise.all([
    import("./lib/db"),
    import("./lib/alerts/receiver-front-door"),
  ]);
  installFrontDoor(receiverFrontDoor(getDatabase));
}
