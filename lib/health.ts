import "server-only";
import { sql } from "drizzle-orm";
import { getDatabase } from "@/lib/db";
import { logger } from "@/lib/log";

const readinessTimeoutMs = 2_000;

/** Ready when the database answers a trivial query within two seconds. */
export async function checkReadiness(): Promise<{ status: "ok" | "unavailable"; database: "ok" | "unavailable" }> {
  try {
    const db = await getDatabase();
    await Promise.race([
      db.execute(sql`select 1`),
      new Promise((_, reject) => setTimeout(() => reject(new Error("database did not answer in time")), readinessTimeoutMs).unref()),
    ]);
    return { status: "ok", database: "ok" };
  } catch (error) {
    logger.warn({ err: error }, "readiness check failed");
    return { status: "unavailable", database: "unavailable" };
  }
}
