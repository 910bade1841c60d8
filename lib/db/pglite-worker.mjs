// The embedded database's own thread (started by lib/db/pglite-thread.ts). PGlite runs its queries synchronously in
// WebAssembly, so on the server's thread every query stopped every request; here it keeps only this thread busy. The
// server talks to it over the PostgreSQL wire protocol, one MessagePort per connection, with the same driver it uses
// for a PostgreSQL server: bytes in, PGlite executes them, bytes out. Nothing listens on a socket.
import { PGlite } from "@electric-sql/pglite";
import { openAsBlob } from "node:fs";
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";

const sslRequestCode = 80877103;
const gssEncryptionRequestCode = 80877104;
const cancelRequestCode = 80877102;
const terminateMessage = 0x58; // 'X'
// What a connection that ends leaves for the next one: no open transaction, no prepared statements, no settings.
const resetSession = Buffer.concat([frontendMessage("S", Buffer.alloc(0)), simpleQuery("rollback"), simpleQuery("discard all")]);

/** @type {{ dataDir: string | undefined, image: string | undefined }} */
const { dataDir, image } = workerData;
// PostgreSQL's default 128 MB of shared buffers live in this thread's WebAssembly memory and stay resident once
// touched; 32 MB keeps a small instance's working set, and the rest is read through the operating system's page cache.
const sharedBuffers = "32MB";
const database = new PGlite({
  dataDir,
  startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffers}`],
  ...(image ? { loadDataDir: await openAsBlob(image) } : {}),
});
await database.waitReady;

/** Connections with input to run, served one at a time in arrival order: PGlite has a single session. */
const runnable = new Set();
let running = null;

class Connection {
  /** @param {import("node:worker_threads").MessagePort} port */
  constructor(port) {
    this.port = port;
    this.input = Buffer.alloc(0);
    this.started = false;
    this.ending = false;
    this.ended = false;
    this.portClosed = false;
    port.on("message", (bytes) => {
      this.receive(bytes);
      schedule(this);
    });
    port.once("close", () => {
      this.portClosed = true;
      this.ending = true;
      schedule(this);
    });
  }

  /** @param {Uint8Array} bytes */
  receive(bytes) {
    const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.input = this.input.length ? Buffer.concat([this.input, chunk]) : chunk;
  }

  async run() {
    if (this.ended) return;
    // Whatever else the driver sent meanwhile (it pipelines) goes to PGlite in the same call. Never once the port has
    // closed: Node does not survive receiveMessageOnPort on a closed port.
    while (!this.ending) {
      const next = receiveMessageOnPort(this.port);
      if (!next) break;
      this.receive(next.message);
    }
    for (let messages = this.takeMessages(); messages; messages = this.takeMessages()) {
      if (messages.length) this.send(await execute(messages));
    }
    if (this.ending) await this.end();
  }

  /** The complete messages at the front of the input (an empty buffer for one answered here), or null for none. */
  takeMessages() {
    if (this.ending) return null;
    const input = this.input;
    if (!this.started) {
      // Untyped start-up packets: the start-up message itself, or a request for encryption or to cancel.
      if (input.length < 8 || input.length < input.readInt32BE(0)) return null;
      const length = input.readInt32BE(0);
      const code = input.readInt32BE(4);
      this.input = input.subarray(length);
      if (code === sslRequestCode || code === gssEncryptionRequestCode) {
        // The channel never leaves the process: no encryption.
        this.send(Buffer.from("N"));
        return Buffer.alloc(0);
      }
      if (code === cancelRequestCode) {
        // A query here cannot be interrupted; the request's connection ends without an answer, as the protocol has it.
        this.ending = true;
        return null;
      }
      this.started = true;
      return input.subarray(0, length);
    }
    let end = 0;
    while (end + 5 <= input.length) {
      if (input[end] === terminateMessage) {
        this.ending = true;
        break;
      }
      const next = end + 1 + input.readInt32BE(end + 1);
      if (next > input.length) break;
      end = next;
    }
    this.input = input.subarray(end);
    return end ? input.subarray(0, end) : null;
  }

  /** @param {Uint8Array} bytes */
  send(bytes) {
    // Handed over, not copied again: `bytes` is a buffer of its own.
    if (bytes.length && !this.portClosed) this.port.postMessage(bytes, [bytes.buffer]);
  }

  async end() {
    if (this.ended) return;
    this.ended = true;
    runnable.delete(this);
    if (this.started) await execute(resetSession);
    if (!this.portClosed) this.port.close();
  }
}

/** @param {Connection} connection */
function schedule(connection) {
  runnable.add(connection);
  running ??= runAll();
}

async function runAll() {
  try {
    while (runnable.size) {
      const [connection] = runnable;
      runnable.delete(connection);
      await connection.run();
    }
  } finally {
    // In the same turn as the last check: a connection scheduled from now on starts a new run.
    running = null;
  }
}

/**
 * Runs complete protocol messages; answers what PostgreSQL wrote, in a buffer of its own. A failure here is PGlite's
 * own (a query's error is an answer), so it is left to end the thread: the server learns of it and stops.
 * @param {Uint8Array} messages
 */
async function execute(messages) {
  const chunks = [];
  let length = 0;
  await database.execProtocolRawStream(messages, {
    onRawData(data) {
      // A view into PGlite's memory, reused by the next write: copied.
      chunks.push(Buffer.from(data));
      length += data.length;
    },
  });
  const answer = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    answer.set(chunk, offset);
    offset += chunk.length;
  }
  return answer;
}

/**
 * @param {string} type
 * @param {Buffer} body
 */
function frontendMessage(type, body) {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** @param {string} text */
function simpleQuery(text) {
  return frontendMessage("Q", Buffer.from(`${text}\0`, "utf8"));
}

parentPort.on("message", async (message) => {
  if (message.type === "connect") {
    new Connection(message.port);
  } else if (message.type === "close") {
    await running;
    await database.close();
    process.exit(0);
  }
});
parentPort.postMessage({ type: "ready" });
