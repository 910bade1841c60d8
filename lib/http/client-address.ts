import "server-only";
import { isIP, type BlockList } from "node:net";
import { headers } from "next/headers";
import { env } from "@/lib/env";
import { peerAddressHeader } from "./lane-keys.mjs";

export { peerAddressHeader };

/** Request headers as route handlers (`Headers`) and next-auth (a plain object) see them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** `::ffff:192.0.2.1` is how a dual-stack socket reports an IPv4 peer; rules and keys use the IPv4 form. */
function canonical(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

function isInRanges(ranges: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && ranges.check(address, family === 6 ? "ipv6" : "ipv4");
}

function isTrustedProxy(address: string): boolean {
  return isInRanges(env.TRUSTED_PROXIES, address);
}

/**
 * The address a request comes from, for rate limits: the socket's peer, or, when the peer is a trusted proxy, the
 * nearest address in `X-Forwarded-For` that is not one (each proxy appends the address it was reached from, so only
 * entries added by trusted proxies can be believed). Without the peer header (`next dev`), Next.js has put the socket
 * address in `X-Forwarded-For` unless the client sent one, so there a client can choose its address. Null when the
 * request says nothing of where it comes from (it was not made over HTTP), and per-address throttles do not apply.
 */
export function clientAddress(headers: HeaderSource): string | null {
  const forwarded = (readHeader(headers, "x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => canonical(entry.trim()))
    .filter((entry) => entry !== "");
  const peer = readHeader(headers, peerAddressHeader);
  let address = peer ? canonical(peer) : forwarded.pop();
  while (address !== undefined && isTrustedProxy(address) && forwarded.length > 0) address = forwarded.pop()!;
  return address ?? null;
}

/** The address of the request a page or server action is rendering for. */
export async function requestClientAddress(): Promise<string | null> {
  return clientAddress(await headers());
}

/**
 * Whether a request may read what the service tells its monitoring (`/-/metrics`): it comes from an address in
 * MONITORING_ALLOWLIST, as GitLab's `monitoring_whitelist`. The address is `clientAddress`'s, so behind a proxy it is
 * the scraper's, not the proxy's.
 */
export function isMonitoringRequest(headers: HeaderSource): boolean {
  const address = clientAddress(headers);
  return address !== null && isInRanges(env.MONITORING_ALLOWLIST, address);
}
