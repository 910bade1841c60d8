import "server-only";
import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { logger } from "@/lib/log";
import { gitEnv, repositoriesRoot } from "./repositories";

export interface BackendRequest {
  request: Request;
  /** Path below the repositories root, e.g. `/12.git/info/refs`. */
  pathInfo: string;
  query: string;
  remoteUser: string | null;
  /** Extra environment for git and its hooks. */
  extraEnv?: Record<string, string>;
  /** Runs after git has finished and before the response ends, so its work is done when the client sees the end. */
  onFinished?: (exitCode: number | null) => Promise<void>;
}

const headerEnd = Buffer.from("\r\n\r\n");
const maxHeaderBytes = 64 * 1024;

/** Splits CGI output into its header block and whatever body bytes came with it. */
function splitCgiHeaders(buffer: Buffer): { headers: string; rest: Buffer } | null {
  let end = buffer.indexOf(headerEnd);
  let separatorLength = headerEnd.length;
  if (end < 0) {
    end = buffer.indexOf("\n\n");
    separatorLength = 2;
  }
  if (end < 0) return null;
  return { headers: buffer.subarray(0, end).toString("latin1"), rest: buffer.subarray(end + separatorLength) };
}

function parseCgiHeaders(block: string): { status: number; headers: Headers } {
  const headers = new Headers();
  let status = 200;
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 500;
    else headers.append(name, value);
  }
  return { status, headers };
}

/**
 * Runs `git http-backend` as a CGI program for one request. Bodies stream in both directions (packs are never held
 * in memory); gzip request bodies are left to git, which inflates them itself.
 */
export async function runHttpBackend(input: BackendRequest): Promise<Response> {
  const { request } = input;
  const cgiEnv: Record<string, string> = {
    GIT_PROJECT_ROOT: repositoriesRoot(),
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: input.pathInfo,
    QUERY_STRING: input.query,
    REQUEST_METHOD: request.method,
    REMOTE_ADDR: "127.0.0.1",
    // The service has already decided who may pull and push; git must not refuse anonymous pulls or any push.
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "http.receivepack",
    GIT_CONFIG_VALUE_0: "true",
    GIT_CONFIG_KEY_1: "http.uploadpack",
    GIT_CONFIG_VALUE_1: "true",
    ...input.extraEnv,
  };
  if (input.remoteUser) cgiEnv.REMOTE_USER = input.remoteUser;
  const contentType = request.headers.get("content-type");
  if (contentType) cgiEnv.CONTENT_TYPE = contentType;
  const contentEncoding = request.headers.get("content-encoding");
  if (contentEncoding) cgiEnv.HTTP_CONTENT_ENCODING = contentEncoding;
  const contentLength = request.headers.get("content-length");
  if (contentLength && /^\d+$/.test(contentLength)) cgiEnv.CONTENT_LENGTH = contentLength;
  const protocol = request.headers.get("git-protocol");
  if (protocol) cgiEnv.HTTP_GIT_PROTOCOL = protocol;

  const child = spawn("git", ["http-backend"], { env: gitEnv(cgiEnv), stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => {
    child.on("close", (code) => resolve(code));
    child.on("error", (error) => {
      logger.error({ err: error }, "could not run git http-backend");
      resolve(null);
    });
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  // A client that goes away mid-upload, or git exiting early, only ends the copy.
  child.stdin.on("error", () => {});
  if (request.body && request.method === "POST") {
    const body = Readable.fromWeb(request.body as unknown as NodeReadableStream<Uint8Array>);
    body.on("error", () => child.stdin.destroy());
    body.pipe(child.stdin);
  } else {
    child.stdin.end();
  }

  const output = child.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let buffered = Buffer.alloc(0);
  let head: { headers: string; rest: Buffer } | null = null;
  while (!head) {
    const next = await output.next();
    if (next.done) break;
    buffered = Buffer.concat([buffered, next.value]);
    head = splitCgiHeaders(buffered);
    if (!head && buffered.length > maxHeaderBytes) break;
  }
  if (!head) {
    child.kill();
    const code = await exited;
    logger.error({ code, stderr: stderr.trim() }, "git http-backend gave no response");
    await input.onFinished?.(code);
    return new Response("Git backend failed\n", { status: 500, headers: { "Content-Type": "text/plain" } });
  }

  const { status, headers } = parseCgiHeaders(head.headers);
  headers.set("Cache-Control", "no-cache");
  const first = head.rest;
  let finished = false;
  const finish = async () => {
    if (finished) return;
    finished = true;
    const code = await exited;
    if (code !== 0 && stderr.trim()) logger.warn({ code, stderr: stderr.trim() }, "git http-backend reported an error");
    await input.onFinished?.(code);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.length > 0) controller.enqueue(new Uint8Array(first));
    },
    async pull(controller) {
      const next = await output.next();
      if (next.done) {
        await finish().catch((error: unknown) => logger.error({ err: error }, "git request follow-up failed"));
        controller.close();
      } else {
        controller.enqueue(new Uint8Array(next.value));
      }
    },
    async cancel() {
      child.kill();
      await finish().catch((error: unknown) => logger.error({ err: error }, "git request follow-up failed"));
    },
  });
  return new Response(body, { status, headers });
}
