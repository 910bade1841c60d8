import "server-only";
import { Readable } from "node:stream";
import { directBodyOf, senderHungUp } from "./direct-dispatch";

/**
 * A request body, read under a size limit that holds whatever the client declares: a `Content-Length` over the
 * limit is refused before anything is read, and a body without one (chunked) is read only until it passes the limit,
 * then the rest is cancelled. A client therefore never makes the server hold more than `limit` bytes of it.
 * `tooLarge` builds the error in the caller's own protocol (GitLab's JSON, OAuth's `invalid_request`, …).
 */
export async function readBodyBytes(request: Request, limit: number, tooLarge: () => Error): Promise<Buffer> {
  const declaredLength = Number(request.headers.get("content-length") ?? "0");
  if (declaredLength > limit) throw tooLarge();
  const direct = directBodyOf(request);
  if (direct) {
    const bytes = await direct.read(limit).catch((error: unknown) => hungUpOr(request, error));
    if (!bytes) throw tooLarge();
    return bytes;
  }
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => hungUpOr(request, error));
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The sender hung up before its whole body arrived. Not the server's failure, and nobody reads the answer: the
 * protocol wrappers answer it with nginx's 499 and log it as information, never as an error a client could fill the
 * error log with.
 */
export class SenderHungUp extends Error {
  readonly status = 499;
  constructor() {
    super("the client closed the connection before its body arrived");
  }
}

function hungUpOr(request: Request, error: unknown): never {
  throw senderHungUp(request) ? new SenderHungUp() : error;
}

/** The body as UTF-8 text, read as `readBodyBytes` reads it. */
export async function readBodyText(request: Request, limit: number, tooLarge: () => Error): Promise<string> {
  return (await readBodyBytes(request, limit, tooLarge)).toString("utf8");
}

/**
 * The body as a Node stream, for piping (to git): it reads one chunk at a time, as the consumer asks for it. When
 * destroyed before the body has ended (git's input refused it), the rest is read and dropped rather than cancelled:
 * cancelling the platform's request body destroys the request, and with it the connection, so the client would lose
 * the refusal the server answers, or the next request on that connection. `Readable.fromWeb` reads ahead, and
 * cancelling while a read is under way makes the platform throw an uncaught error once the body ends.
 */
export function bodyAsNodeStream(request: Request): Readable {
  // The direct lane takes no route that streams its body (git's are left to the framework).
  if (directBodyOf(request)) throw new Error("a body read by the direct lane cannot be streamed");
  if (!request.body) return Readable.from([]);
  const reader = request.body.getReader();
  let discarding = false;
  const discardRest = async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // The sender went away: nothing is left to drop.
    }
  };
  return new Readable({
    read() {
      reader.read().then(
        ({ done, value }) => {
          if (!discarding) this.push(done ? null : value);
        },
        (error: unknown) => {
          if (!discarding) this.destroy(error instanceof Error ? error : new Error(String(error)));
        },
      );
    },
    destroy(error, callback) {
      if (!discarding) {
        discarding = true;
        // Reads queue behind one under way, whose chunk is dropped when it comes.
        void discardRest();
      }
      callback(error);
    },
  });
}
