import "server-only";
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isPublicAddress } from "@/lib/oauth/client-metadata-document";

/** A request this server makes to an address someone else chose. */
export interface OutboundRequest {
  url: string;
  method: "GET" | "POST" | "PUT";
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Whether loopback and private networks may be reached (refused unless the instance allows it). */
  allowLocalNetwork: boolean;
}

export type OutboundResult =
  | { kind: "response"; status: number; headers: Record<string, string>; body: string; truncated: boolean; durationMs: number }
  | { kind: "refused"; reason: string }
  | { kind: "failed"; reason: string; durationMs: number };

/**
 * Sends one request: the host resolved and every address checked first (unless local networks are allowed), the
 * connection made to the checked address, redirects answered as they come (never followed), the whole exchange held
 * to `timeoutMs` and the response body read to at most `maxResponseBytes`.
 */
export async function sendOutbound(outbound: OutboundRequest): Promise<OutboundResult> {
  let url: URL;
  try {
    url = new URL(outbound.url);
  } catch {
    return { kind: "refused", reason: "Invalid URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { kind: "refused", reason: "Only http and https URLs are allowed" };
  const startedAt = performance.now();
  const elapsed = () => performance.now() - startedAt;
  let target: { address: string; family: number };
  try {
    target = await withinTime(resolve(url.hostname), outbound.timeoutMs);
  } catch (error) {
    return { kind: "failed", reason: error instanceof Error ? error.message : "Host could not be resolved", durationMs: elapsed() };
  }
  if (!outbound.allowLocalNetwork && !isPublicAddress(target.address)) {
    return { kind: "refused", reason: "Requests to the local network are not allowed" };
  }
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
  const transport = url.protocol === "https:" ? https : http;
  const headers = { ...outbound.headers, ...(outbound.body === undefined ? {} : { "Content-Length": String(Buffer.byteLength(outbound.body)) }) };
  return new Promise<OutboundResult>((settle) => {
    let settled = false;
    const finish = (result: OutboundResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      settle(result);
    };
    const outgoing = transport.request(url, { method: outbound.method, headers, lookup: pinned, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const answer = () =>
        finish({
          kind: "response",
          status: response.statusCode ?? 0,
          headers: responseHeaders(response.rawHeaders),
          body: Buffer.concat(chunks).toString("utf8"),
          truncated,
          durationMs: elapsed(),
        });
      response.on("data", (chunk: Buffer) => {
        if (truncated) return;
        const room = outbound.maxResponseBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          truncated = true;
          answer();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      response.on("end", answer);
      response.on("error", (error) => finish({ kind: "failed", reason: error.message, durationMs: elapsed() }));
    });
    const timer = setTimeout(
      () => finish({ kind: "failed", reason: `Request timed out after ${Math.round(outbound.timeoutMs / 1000)} seconds`, durationMs: elapsed() }),
      Math.max(0, outbound.timeoutMs - elapsed()),
    );
    timer.unref();
    outgoing.on("error", (error) => finish({ kind: "failed", reason: error.message, durationMs: elapsed() }));
    outgoing.end(outbound.body);
  });
}

async function resolve(hostname: string): Promise<{ address: string; family: number }> {
  const host = hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return { address: host, family: isIP(host) };
  const addresses = await lookup(host, { all: true, verbatim: true });
  const first = addresses[0];
  if (!first) throw new Error("Host could not be resolved");
  // Any private address among them refuses the host: the connection could otherwise be steered to it.
  const privateOne = addresses.find(({ address }) => !isPublicAddress(address));
  return privateOne ?? first;
}

/** The response's headers, each name as the server wrote it, repeated ones joined. */
function responseHeaders(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!;
    headers[name] = name in headers ? `${headers[name]}, ${raw[index + 1]}` : raw[index + 1]!;
  }
  return headers;
}

async function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Request timed out after ${Math.round(ms / 1000)} seconds`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
