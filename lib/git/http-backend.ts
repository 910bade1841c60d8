import "server-only";
import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { bodyAsNodeStream } from "@/lib/http/body";
import { logger } from "@/lib/log";
import { GitBodyInspector, RefusedGitRequest, tooLarge, type GitBodyRules } from "./request-body";
import { gitEnv, repositoriesRoot } from "./repositories";

export interface BackendRequest {
  request: Request;
  /** Path below the repositories root, e.g. `/12.git/info/refs`. */
  pathInfo: string;
  query: string;
  remoteUser: string | null;
  /** Extra environment for git and its hooks. */
  extraEnv?: Record<string, string>;
  /** Configuration for this git run (`git -c`), passed as GIT_CONFIG_* so no file is written. */
  gitConfig?: Record<string, string>;
  /** Checks the POST body while it streams to git; a refused body is answered with its status, never git's. */
  bodyRules?: GitBodyRules;
  /** Runs after git has finished and before the response ends, so its work is done when the client sees the end. */
  onFinished?: (exitCode: number | null) => Promise<void>;
}

const headerEnd = Buffer.from("\r\n\r\n");
const maxHeaderBytes = 64 * 1024;
/**
 * How much of git's answer is held while the request body is still being checked. Git answers a fetch or a push
 * only after reading the whole request (at most a few acknowledgements come earlier), so this is rarely touched; if
 * git says more before the body ends, the answer goes out and a late refusal can only cut it short.
 */
const heldAnswerBytes = 1024 * 1024;

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
 * in memory); a gzip request body is inflated on its way to git. With `bodyRules`, the body is checked as it goes
 * (lib/git/request-body.ts), and git's answer is held until the body has passed, so a refused body gets its own
 * status and message instead of whatever git managed to say before it died.
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
    ...gitConfigEnv({
      // The service has already decided who may pull and push; git must not refuse anonymous pulls or any push.
      "http.receivepack": "true",
      "http.uploadpack": "true",
      ...input.gitConfig,
    }),
    ...input.extraEnv,
  };
  if (input.remoteUser) cgiEnv.REMOTE_USER = input.remoteUser;
  const contentType = request.headers.get("content-type");
  if (contentType) cgiEnv.CONTENT_TYPE = contentType;
  const protocol = request.headers.get("git-protocol");
  if (protocol) cgiEnv.HTTP_GIT_PROTOCOL = protocol;
  const contentEncoding = (request.headers.get("content-encoding") ?? "").trim().toLowerCase();
  // A gzip body (git compresses large fetch requests) is inflated here, so the checks see what git will read.
  const gzipped = contentEncoding === "gzip" || contentEncoding === "x-gzip";
  const contentLength = request.headers.get("content-length");
  if (request.method === "POST" && contentEncoding !== "" && contentEncoding !== "identity" && !gzipped) {
    return plainAnswer(new RefusedGitRequest(415, `Unsupported Content-Encoding ${JSON.stringify(contentEncoding)}: send gzip or nothing.`));
  }
  const maxBytes = input.bodyRules?.maxBytes;
  if (!gzipped && maxBytes !== undefined && Number(contentLength ?? "0") > maxBytes) {
    return plainAnswer(tooLarge(input.bodyRules!));
  }
  // Inflated, the body's length is no longer the declared one: git then reads it to its end.
  if (!gzipped && contentLength && /^\d+$/.test(contentLength)) cgiEnv.CONTENT_LENGTH = contentLength;

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
  const bodyChecked = request.method === "POST" ? copyBody(request, child.stdin, { gzipped, rules: input.bodyRules }) : endInput(child.stdin);

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
    const refusal = await bodyChecked;
    await input.onFinished?.(code);
    if (refusal) return plainAnswer(refusal);
    logger.error({ code, stderr: stderr.trim() }, "git http-backend gave no response");
    return new Response("Git backend failed\n", { status: 500, headers: { "Content-Type": "text/plain" } });
  }

  const { status, headers } = parseCgiHeaders(head.headers);
  headers.set("Cache-Control", "no-cache");
  const first = head.rest;
  let finished = false;
  let stopped = false;
  let markHeldFull = () => {};
  const heldFull = new Promise<null>((resolve) => (markHeldFull = () => resolve(null)));
  const finish = async () => {
    if (finished) return;
    finished = true;
    const code = await exited;
    if (code !== 0 && stderr.trim()) logger.warn({ code, stderr: stderr.trim() }, "git http-backend reported an error");
    await input.onFinished?.(code);
  };
  // Until the request body has passed its checks, git's answer waits in this stream's queue (up to heldAnswerBytes).
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (first.length > 0) controller.enqueue(new Uint8Array(first));
      },
      async pull(controller) {
        const next = await output.next();
        if (stopped) return;
        if (next.done) {
          await finish().catch((error: unknown) => logger.error({ err: error }, "git request follow-up failed"));
          controller.close();
        } else {
          controller.enqueue(new Uint8Array(next.value));
          if ((controller.desiredSize ?? 0) <= 0) markHeldFull();
        }
      },
      async cancel() {
        stopped = true;
        child.kill();
        await finish().catch((error: unknown) => logger.error({ err: error }, "git request follow-up failed"));
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: heldAnswerBytes }),
  );
  const refusal = await Promise.race([bodyChecked, heldFull]);
  if (refusal) {
    // Git is stopped before it has the whole body, so nothing it was sent takes effect; then the follow-up runs.
    await body.cancel();
    return plainAnswer(refusal);
  }
  // Only when git said more than can be held before the body ended: a refusal now can still stop git, not the answer.
  void bodyChecked.then((late) => {
    if (late) child.kill();
  });
  return new Response(body, { status, headers });
}

/** GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n> for each setting, as `git -c` would set them. */
function gitConfigEnv(settings: Record<string, string>): Record<string, string> {
  const entries = Object.entries(settings);
  const variables: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], index) => {
    variables[`GIT_CONFIG_KEY_${index}`] = key;
    variables[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return variables;
}

/**
 * Copies the request body to git's input, inflating it first when it was gzipped, through the checks of `rules`.
 * Resolves with the refusal when the body failed them, or null once it has all gone to git (or git stopped reading
 * it, which is git's own answer to give).
 */
async function copyBody(
  request: Request,
  input: Writable,
  options: { gzipped: boolean; rules?: GitBodyRules },
): Promise<RefusedGitRequest | null> {
  const source = bodyAsNodeStream(request);
  const inspector = options.rules ? new GitBodyInspector(options.rules) : null;
  const gunzip = options.gzipped ? createGunzip() : null;
  let undecodable: RefusedGitRequest | null = null;
  gunzip?.on("error", () => {
    undecodable ??= new RefusedGitRequest(400, "Bad request: the gzip request body could not be inflated.");
  });
  const stages = [source, ...(gunzip ? [gunzip] : []), ...(inspector ? [inspector] : []), input];
  try {
    await pipeline(stages);
  } catch {
    // The checks' own verdict, if they gave one; otherwise the client or git went away, and git answers for itself.
  }
  return inspector?.refusal ?? undecodable;
}

async function endInput(input: Writable): Promise<null> {
  input.end();
  return null;
}

function plainAnswer(refusal: RefusedGitRequest): Response {
  return new Response(`${refusal.message}\n`, {
    status: refusal.status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}
