import "server-only";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { getDatabaseHandle } from "@/lib/db";
import { env } from "@/lib/env";
import { logger } from "@/lib/log";
import { cameThroughOperatorSocket } from "@/lib/operator/route";
import { ReaderGone } from "./archive.mjs";
import { writeBackup } from "./dump";

/**
 * `GET /-/operator/backup`, from the operator socket only (anyone else: 404, as for a route that does not exist):
 * the backup archive, streamed as it is written, so the server holds about one entry of it at a time. The status is
 * sent before the archive is whole; a failure after that cuts the response short, which `npm run backup` reports
 * (the archive it received has no manifest), and the reason is logged here.
 */
export async function serveBackup(request: Request): Promise<Response> {
  if (!cameThroughOperatorSocket(request)) return new Response("404 Not Found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const handle = await getDatabaseHandle().catch((error: unknown) => {
    logger.error({ err: error }, "backup refused: the database is not available");
    return null;
  });
  if (!handle) return new Response("The server cannot reach its database; its log says why.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const body = new PassThrough();
  logger.info({ backup: { database: handle.driver } }, "backup started");
  writeBackup(handle, body, {
    now: new Date(),
    migrationsFolder: path.join(process.cwd(), "drizzle"),
    // Secrets the database does not hold: the operator must keep them with the backup.
    environmentSecrets: env.SESSION_SECRET ? ["SESSION_SECRET"] : [],
  }).then(
    (summary) => {
      logger.info({ backup: summary }, "backup written");
      body.end();
    },
    (error: unknown) => {
      if (error instanceof ReaderGone) logger.warn("backup abandoned: its reader went away");
      else logger.error({ err: error }, "backup failed");
      body.destroy(error instanceof Error ? error : new Error(String(error)));
    },
  );
  return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, {
    headers: { "Content-Type": "application/x-tar", "Cache-Control": "no-store" },
  });
}
