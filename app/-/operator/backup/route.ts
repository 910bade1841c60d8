import { serveBackup } from "@/lib/backup/route";

/** The archive `npm run backup` writes, from the operator socket only; see lib/backup/route.ts. */
export const GET = serveBackup;
