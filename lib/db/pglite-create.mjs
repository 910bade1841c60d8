// Creates a new embedded database directory (PGlite's initdb) in a process of its own, run once by
// lib/db/pglite-thread.ts before the server opens a directory that holds no database yet. initdb runs in WebAssembly
// and leaves hundreds of megabytes of memory behind that its process never gives back: in the server's own thread
// they stayed for the server's life (some 750 MB idle after a first start, against 160 MB after a restart). A process
// that exits returns all of it.
import { PGlite } from "@electric-sql/pglite";

const [dataDir] = process.argv.slice(2);
if (!dataDir) {
  console.error("usage: node lib/db/pglite-create.mjs <data directory>");
  process.exit(2);
}
const database = new PGlite(dataDir);
await database.waitReady;
await database.close();
