import "server-only";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { Duplex } from "node:stream";
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import postgres from "postgres";

/** The embedded database, running in a worker thread of its own (lib/db/pglite-worker.mjs). */
export interface PgliteThread {
  /** A new connection speaking the PostgreSQL wire protocol, in the shape postgres.js's `socket` option takes. */
  connect(): Duplex;
  /** Closes the database, so PGlite leaves its files consistent, and ends the thread. */
  close(): Promise<void>;
}

// A file of its own, loaded by Node as it is (a worker cannot run a bundle's module); found from the working directory
// as the migrations are.
const pgliteWorkerFile = path.join(process.cwd(), "lib", "db", "pglite-worker.mjs");
// The script that creates a new data directory, in a process of its own (see the file).
const pgliteCreateFile = path.join(process.cwd(), "lib", "db", "pglite-create.mjs");

/**
 * Creates the database in `dataDir` if it holds none yet (PostgreSQL's `PG_VERSION` marks one), in a child process,
 * so initdb's memory goes with that process instead of staying in the server's.
 */
async function createDataDirectoryIfNew(dataDir: string): Promise<void> {
  if (existsSync(path.join(dataDir, "PG_VERSION"))) return;
  try {
    await promisify(execFile)(process.execPath, [pgliteCreateFile, dataDir]);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`The embedded database could not be created in ${dataDir}: ${stderr?.trim() || (error as Error).message}`, { cause: error });
  }
}

export interface PgliteThreadOptions {
  /** The thread's script (another only in tests). */
  workerFile?: string;
  /**
   * A file PGlite's `dumpDataDir()` wrote: the database starts as a copy of it instead of an empty one (tests start
   * each fresh database from one migrated image, rather than creating and migrating every one).
   */
  image?: string;
}

/**
 * Starts PGlite on `dataDir` (undefined: in memory) in a worker thread and resolves once it is open; rejects with
 * PGlite's error if it cannot open the directory. Should the thread stop on its own later, every connection closes
 * (their queries fail) and `onFailure` is told why.
 */
export async function startPgliteThread(
  dataDir: string | undefined,
  onFailure: (error: Error) => void,
  { workerFile = pgliteWorkerFile, image }: PgliteThreadOptions = {},
): Promise<PgliteThread> {
  if (dataDir !== undefined) await createDataDirectoryIfNew(dataDir);
  // Constructed out of the bundler's sight: Turbopack takes `new Worker(path)` for a worker to bundle, and a path it
  // cannot evaluate for every file of the project (its ignore comment does not reach node worker threads).
  const worker: Worker = Reflect.construct(Worker, [workerFile, { workerData: { dataDir, image } }]);
  let closing = false;
  let failure: Error | undefined;

  const thread: PgliteThread = {
    connect() {
      if (failure) return failedConnection(failure);
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ type: "connect", port: port2 }, [port2]);
      return connectionOver(port1);
    },
    close() {
      if (closing) return exited;
      closing = true;
      worker.postMessage({ type: "close" });
      return exited;
    },
  };

  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return new Promise<PgliteThread>((resolve, reject) => {
    let ready = false;
    const fail = (error: Error) => {
      if (failure || closing) return;
      failure = new Error(`The embedded database (PGlite) stopped: ${error.message}`, { cause: error });
      if (ready) onFailure(failure);
      else reject(error);
    };
    worker.on("message", (message: { type: string }) => {
      if (message.type !== "ready") return;
      ready = true;
      resolve(thread);
    });
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`its thread exited with code ${code}`)));
  });
}

/**
 * The driver for the thread's database: postgres.js, as for PostgreSQL, on one connection (PGlite has one session),
 * kept for the process's life, since a new one would start a new session.
 */
export function pgliteClient(thread: PgliteThread, onNotify: (channel: string, payload: string) => void): postgres.Sql {
  const options: postgres.Options<Record<string, postgres.PostgresType>> & {
    socket: () => Duplex;
    onnotify(channel: string, payload: string): void;
  } = {
    // postgres.js connects through any stream shaped like a net.Socket; its types leave this option out.
    socket: () => thread.connect(),
    // PGlite's own user and database; set here so PGUSER or PGDATABASE meant for a server change nothing.
    user: "postgres",
    database: "postgres",
    ssl: false,
    max: 1,
    idle_timeout: 0,
    max_lifetime: 0,
    onnotice: () => {},
    // The notifications of a LISTEN on this connection (`DatabaseHandle.listen`); its types leave the option out.
    onnotify: onNotify,
  };
  return postgres(options);
}

/**
 * A connection that fails on the driver's first write (its start-up message). postgres.js must learn the error from
 * the socket, once it listens to it: after a throw from its `socket` option it never settles the queries that wait
 * for the connection.
 */
function failedConnection(error: Error): Duplex {
  return new Duplex({
    read() {},
    write(_chunk, _encoding, callback) {
      callback(error);
    },
  });
}

/**
 * One connection as a stream: what the driver writes goes to the thread, what the thread answers is read. It closes
 * when the thread closes the channel (after the driver's Terminate, or when the thread has stopped).
 */
function connectionOver(port: MessagePort): Duplex {
  const socket = new Duplex({
    allowHalfOpen: false,
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      // Copied into a buffer of its own and handed over: the chunk can be a view into a much larger buffer, which
      // postMessage would clone whole.
      const bytes = new Uint8Array(chunk);
      port.postMessage(bytes, [bytes.buffer]);
      callback();
    },
    destroy(error, callback) {
      port.close();
      callback(error);
    },
  });
  port.on("message", (bytes: Uint8Array) => socket.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
  port.once("close", () => socket.push(null));
  // postgres.js reads a net.Socket's state to decide whether to say goodbye and wait for the close.
  Object.defineProperty(socket, "readyState", {
    get: () => (socket.destroyed ? "closed" : socket.writable ? "open" : "readOnly"),
  });
  return socket;
}
