import "server-only";
import { getDatabaseHandle } from "@/lib/db";
import { env } from "@/lib/env";
import { scheduleHousekeeping } from "@/lib/housekeeping";
import { logger } from "@/lib/log";
import { markdownRenderPool } from "@/lib/markdown/render";
import { startTokenCheckCache } from "@/lib/token-checks/checks";
import { bootstrapRoot } from "@/lib/users/bootstrap";

export async function startService(): Promise<void> {
  try {
    await prepare();
  } catch (error) {
    console.error("Start-up failed:", error);
    process.exit(1);
  }
}

async function prepare(): Promise<void> {
  const handle = await getDatabaseHandle();
  await handle.migrate();
  await startTokenCheckCache(handle);
  await bootstrapRoot(handle.db, new Date());
  // Started now, so the first save does not wait for the render threads to load.
  markdownRenderPool();
  logger.info(
    { database: handle.driver === "pglite" ? `embedded PGlite in ${env.DATA_DIR}` : "PostgreSQL" },
    "database ready",
  );
  console.log(`Sign in at ${env.EXTERNAL_URL}/users/sign_in`);
  scheduleHousekeeping();
}
