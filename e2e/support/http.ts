import { Agent, request as httpRequest } from "node:http";

export interface EarlyAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Body bytes that had gone out when the answer arrived. */
  bytesSent: number;
  /** Whether the answer came while the body was still being sent, i.e. the server did not wait for all of it. */
  answeredBeforeEnd: boolean;
}

/**
 * POSTs a body without Content-Length (chunked) that goes on until the server answers, or until `limitBytes` have
 * gone out and it ends. A server that reads bodies under a limit answers long before that; one that reads the whole
 * body first answers only after the end, which `answeredBeforeEnd` shows.
 */
export async function postUntilAnswered(
  baseURL: string,
  path: string,
  headers: Record<string, string>,
  options: { chunk?: Buffer; limitBytes?: number } = {},
): Promise<EarlyAnswer> {
  // A server that answers early and closes while chunks are still arriving may reset the connection before the client
  // has read the answer (TCP discards it), which says nothing of the limit under test: such an attempt is made again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await postOnceUntilAnswered(baseURL, path, headers, options);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= 3 || (code !== "ECONNRESET" && code !== "EPIPE")) throw error;
    }
  }
}

function postOnceUntilAnswered(
  baseURL: string,
  path: string,
  headers: Record<string, string>,
  options: { chunk?: Buffer; limitBytes?: number },
): Promise<EarlyAnswer> {
  const chunk = options.chunk ?? Buffer.alloc(64 * 1024, "a");
  const limitBytes = options.limitBytes ?? 32 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let ended = false;
    let answered = false;
    const request = httpRequest(new URL(path, baseURL), { method: "POST", headers: { ...headers, "Transfer-Encoding": "chunked" } });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    request.on("response", (response) => {
      answered = true;
      const answeredBeforeEnd = !ended;
      const chunks: Buffer[] = [];
      response.on("data", (data: Buffer) => chunks.push(data));
      response.on("end", () => {
        request.destroy();
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          bytesSent,
          answeredBeforeEnd,
        });
      });
    });
    // One chunk per turn of the event loop: a loopback socket takes chunks as fast as they come, and a loop that kept
    // writing would not see the answer until it stopped.
    const send = () => {
      if (!answered && bytesSent < limitBytes) {
        bytesSent += chunk.length;
        if (request.write(chunk)) setImmediate(send);
        else request.once("drain", send);
        return;
      }
      if (!answered && !ended) {
        ended = true;
        request.end();
      }
    };
    send();
  });
}

/**
 * POSTs the headers and the start of a body that `Content-Length` says is longer, then hangs up, as a client that
 * crashes or loses its network mid-upload does. Resolves once the connection is closed.
 */
export function hangUpMidBody(baseURL: string, path: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const request = httpRequest(new URL(path, baseURL), { method: "POST", headers: { ...headers, "Content-Length": "5000" } });
    request.on("error", () => {});
    request.on("close", () => resolve());
    request.write("{");
    setTimeout(() => request.destroy(), 100);
  });
}

export interface PlainAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Sends one request from the local address `from` (any of 127.0.0.0/8 on Linux), straight to the server's IPv4
 * loopback, as a client on that address connected directly would.
 */
export function requestFrom(
  baseURL: string,
  from: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<PlainAnswer> {
  const url = new URL(path, baseURL);
  url.hostname = "127.0.0.1";
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? "GET", headers: options.headers, localAddress: from }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (data: Buffer) => chunks.push(data));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

/**
 * POSTs each body in turn on one kept-alive connection, as clients that reuse connections do, and answers what came
 * back for each: the answer, or the error (`ECONNRESET`) when the connection broke under it.
 */
export async function postInTurn(baseURL: string, path: string, headers: Record<string, string>, bodies: Buffer[]): Promise<(PlainAnswer | { error: string })[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const answers: (PlainAnswer | { error: string })[] = [];
  try {
    for (const body of bodies) {
      answers.push(
        await new Promise((resolve) => {
          const request = httpRequest(new URL(path, baseURL), { method: "POST", agent, headers: { ...headers, "Content-Length": body.length } }, (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (data: Buffer) => chunks.push(data));
            response.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
            response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }));
          });
          request.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
          request.end(body);
        }),
      );
    }
  } finally {
    agent.destroy();
  }
  return answers;
}
