import "server-only";
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { networkInterfaces } from "node:os";

/**
 * Requests this server sends to URLs other people chose (webhooks, integrations, OAuth client metadata documents).
 *
 * Whoever types the URL must not reach what only this server can: its own loopback services, the private network it
 * sits in, the cloud metadata address. So the host is resolved once, every address it resolves to is checked, and the
 * connection goes to the checked address (a pinned lookup), so a name that answers differently the second time (DNS
 * rebinding) cannot slip past. Refusals say why in GitLab's words (`Gitlab::HTTP_V2::UrlBlocker`).
 */
export interface OutboundRequest {
  url: string;
  method: "GET" | "POST" | "PUT";
  headers: Record<string, string>;
  body?: string; // sent as is
  timeoutMs: number; // whole exchange: connect, send, response headers and body
  maxResponseBytes: number; // response body read up to this, then the connection is dropped; body truncated
  allowLocalNetwork: boolean; // the instance setting (or an env override for the metadata document fetch)
  verifyTls?: boolean; // false accepts any certificate (a hook's `enable_ssl_verification` turned off); default true
}

export type OutboundResult =
  | { kind: "response"; status: number; headers: Record<string, string>; body: string; truncated: boolean; durationMs: number }
  | { kind: "refused"; reason: string } // never sent: bad URL/scheme, credentials in URL, address not allowed
  | { kind: "failed"; reason: string; durationMs: number }; // sent or tried: DNS failure, connection error, timeout, TLS

/** Every address a host name resolves to. Replaced in tests, to answer names with addresses of their choosing. */
export type HostResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: HostResolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export interface OutboundOptions {
  resolve?: HostResolver;
  /** Connections kept open for the next request to the same place (`OutboundSession`); by default one per request. */
  session?: OutboundSession;
}

type CheckedAddress = { address: string; family: number };

/**
 * Requests sent one after another to the same places (a run of one webhook's deliveries), each over a connection
 * kept open for the next, where a request of its own would pay a new connection (and TLS handshake) every time. A
 * host is resolved and checked once per session, and its connections go to the address checked, as a single
 * request's does. `close()` ends them; a session is meant to last one run, not to outlive a change of the setting or
 * of the name's addresses.
 */
export class OutboundSession {
  private readonly addresses = new Map<string, CheckedAddress>();
  private readonly agents = new Map<string, http.Agent>();

  /** The host's checked address, resolved the first time the session needs it. */
  async resolve(host: string, allowLocalNetwork: boolean, resolver: HostResolver): Promise<Resolution> {
    const key = `${allowLocalNetwork}|${host}`;
    const known = this.addresses.get(key);
    if (known) return { ok: true, ...known };
    const resolution = await resolvedAddress(host, allowLocalNetwork, resolver);
    if (resolution.ok) this.addresses.set(key, { address: resolution.address, family: resolution.family });
    return resolution;
  }

  /** The agent that keeps one connection open to `address` over `protocol`. */
  agentFor(protocol: string, target: CheckedAddress, verifyTls: boolean): http.Agent {
    const key = `${protocol}|${target.address}|${verifyTls}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const options = { keepAlive: true, maxSockets: 1, lookup: pinnedLookup(target) };
      agent = protocol === "https:" ? new https.Agent({ ...options, rejectUnauthorized: verifyTls }) : new http.Agent(options);
      this.agents.set(key, agent);
    }
    return agent;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
    this.addresses.clear();
  }
}

/** A lookup that answers the address already checked, whatever the name would resolve to now. */
function pinnedLookup(target: CheckedAddress): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/** GitLab's reasons, word for word where GitLab has one. */
export const outboundReasons = {
  invalidUri: "URI is invalid",
  scheme: "Only allowed schemes are http, https",
  credentials: "Credentials in the URL are not allowed",
  hostname: "Hostname or IP address invalid",
  unresolvable: "Host cannot be resolved or invalid",
  localhost: "Requests to localhost are not allowed",
  loopback: "Requests to loopback addresses are not allowed",
  localNetwork: "Requests to the local network are not allowed",
  linkLocal: "Requests to the link local network are not allowed",
  sharedAddress: "Requests to the shared address space are not allowed",
  broadcast: "Requests to the limited broadcast address are not allowed",
  multicast: "Requests to multicast addresses are not allowed",
  reserved: "Requests to reserved addresses are not allowed",
  timedOut: (timeoutMs: number) => `Request timed out after ${timeoutMs} ms`,
} as const;

type Ipv4 = [number, number, number, number];

function parseIpv4(text: string): Ipv4 | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return null;
  return parts.map(Number) as Ipv4;
}

/** The 16 bytes of an IPv6 address in any textual form (`::`, a trailing dotted quad); null if it is not one. */
function parseIpv6(text: string): number[] | null {
  if (isIP(text) !== 6) return null;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const hex = quad ? text.slice(0, quad.index) + [(Number(quad[1]) << 8) | Number(quad[2]), (Number(quad[3]) << 8) | Number(quad[4])].map((word) => word.toString(16)).join(":") : text;
  const [left, right] = hex.split("::") as [string, string | undefined];
  const read = (part: string) => (part === "" ? [] : part.split(":").map((word) => parseInt(word, 16)));
  const words = right === undefined ? read(left) : [...read(left), ...new Array<number>(8 - read(left).length - read(right).length).fill(0), ...read(right)];
  if (words.length !== 8) return null;
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

function startsWith(bytes: number[], prefix: number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((bytes[Math.floor(bit / 8)]! & mask) !== (prefix[Math.floor(bit / 8)]! & mask)) return false;
  }
  return true;
}

const inIpv4 = (address: Ipv4, network: Ipv4, bits: number) => startsWith(address, network, bits);

/** The problem with an IPv4 address, most specific first, as GitLab orders its checks. */
function ipv4Problem(address: Ipv4): string | null {
  if (inIpv4(address, [127, 0, 0, 0], 8)) return outboundReasons.loopback;
  if (inIpv4(address, [10, 0, 0, 0], 8) || inIpv4(address, [172, 16, 0, 0], 12) || inIpv4(address, [192, 168, 0, 0], 16)) return outboundReasons.localNetwork;
  if (inIpv4(address, [169, 254, 0, 0], 16)) return outboundReasons.linkLocal;
  if (inIpv4(address, [100, 64, 0, 0], 10)) return outboundReasons.sharedAddress;
  if (address.every((byte) => byte === 255)) return outboundReasons.broadcast;
  if (inIpv4(address, [224, 0, 0, 0], 4)) return outboundReasons.multicast;
  const reserved: [Ipv4, number][] = [
    [[192, 0, 0, 0], 24], // IETF protocol assignments
    [[192, 0, 2, 0], 24], // documentation
    [[198, 51, 100, 0], 24],
    [[203, 0, 113, 0], 24],
    [[198, 18, 0, 0], 15], // benchmarking
    [[192, 88, 99, 0], 24], // 6to4 relays, deprecated
    [[240, 0, 0, 0], 4], // future use
  ];
  if (reserved.some(([network, bits]) => inIpv4(address, network, bits))) return outboundReasons.reserved;
  return null;
}

/** The IPv4 address an IPv6 address carries, where the network would deliver it to that IPv4 address. */
function embeddedIpv4(bytes: number[]): Ipv4 | null {
  const last = bytes.slice(12) as Ipv4;
  const zeros = (count: number) => bytes.slice(0, count).every((byte) => byte === 0);
  if (zeros(10) && bytes[10] === 0xff && bytes[11] === 0xff) return last; // ::ffff:a.b.c.d, mapped
  if (zeros(12) && !(last[0] === 0 && last[1] === 0 && last[2] === 0 && last[3] <= 1)) return last; // ::a.b.c.d, compatible
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96)) return last; // 64:ff9b::/96, NAT64
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6) as Ipv4; // 2002::/16, 6to4
  return null;
}

function ipv6Problem(bytes: number[]): string | null {
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) return outboundReasons.loopback;
  if (startsWith(bytes, [0xfc], 7) || startsWith(bytes, [0xfe, 0xc0], 10)) return outboundReasons.localNetwork; // unique local, site-local
  if (startsWith(bytes, [0xfe, 0x80], 10)) return outboundReasons.linkLocal;
  if (bytes[0] === 0xff) return outboundReasons.multicast;
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 1], 48)) return outboundReasons.localNetwork; // local-use NAT64
  const reserved: [number[], number][] = [
    [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
    [[0x20, 0x01, 0x00, 0x00], 23], // IETF protocol assignments, Teredo among them
    [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64], // discard
  ];
  if (reserved.some(([network, bits]) => startsWith(bytes, network, bits))) return outboundReasons.reserved;
  // Only 2000::/3 is global unicast; everything else is unassigned or special.
  if (!startsWith(bytes, [0x20], 3)) return outboundReasons.reserved;
  return null;
}

/** This machine's own addresses (`a.b.c.d`, or an IPv6 address's bytes joined): GitLab refuses them as localhost. */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      const bytes = entry.family === "IPv6" ? parseIpv6(entry.address.replace(/%.*$/, "")) : null;
      own.add(bytes ? bytes.join(",") : entry.address);
    }
  }
  return own;
}

/**
 * Why a request may not go to `address`, or null when it may. Without `allowLocalNetwork`, only public unicast
 * addresses are allowed; with it, everything but the unspecified address (0.0.0.0/8, `::`), which reaches this host.
 * An IPv6 address that carries an IPv4 address (mapped, compatible, NAT64, 6to4) is judged as that IPv4 address.
 */
export function addressProblem(address: string, allowLocalNetwork: boolean): string | null {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  const ipv4 = parseIpv4(bare);
  const bytes = ipv4 ? null : parseIpv6(bare);
  if (!ipv4 && !bytes) return outboundReasons.hostname;
  const carried = ipv4 ?? embeddedIpv4(bytes!);
  if (carried ? carried[0] === 0 : bytes!.every((byte) => byte === 0)) return outboundReasons.localhost;
  if (allowLocalNetwork) return null;
  if (ownAddresses().has(carried ? carried.join(".") : bytes!.join(","))) return outboundReasons.localhost;
  return carried ? ipv4Problem(carried) : ipv6Problem(bytes!);
}

type UrlCheck = { ok: true; url: URL; host: string } | { ok: false; reason: string };

/** The rules for the URL itself, before any name is resolved. */
function checkedUrl(text: string): UrlCheck {
  // The URL parser quietly drops tabs and line breaks and trims spaces; a URL that needs that is refused, as GitLab does.
  if (/[\u0000-\u0020\u007f]/.test(text)) return { ok: false, reason: outboundReasons.invalidUri };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: outboundReasons.invalidUri };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: outboundReasons.scheme };
  if (url.username || url.password) return { ok: false, reason: outboundReasons.credentials };
  // The parser has already turned every IPv4 spelling (2130706433, 0x7f.1, 0177.0.0.1, 127.1) into dotted decimal.
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!isIP(host) && !/^[\p{L}\p{N}]/u.test(host)) return { ok: false, reason: outboundReasons.hostname };
  return { ok: true, url, host };
}

/**
 * Why a request to `url` would be refused, judged without resolving any name: the URL's own rules, a literal address,
 * and `localhost` names. For a URL saved now and sent later (a hook's), whose addresses each send checks again.
 */
export function literalUrlProblem(url: string, allowLocalNetwork: boolean): string | null {
  const checked = checkedUrl(url);
  if (!checked.ok) return checked.reason;
  if (isIP(checked.host)) return addressProblem(checked.host, allowLocalNetwork);
  const name = checked.host.toLowerCase();
  return !allowLocalNetwork && (name === "localhost" || name.endsWith(".localhost")) ? outboundReasons.localhost : null;
}

type Resolution = { ok: true; address: string; family: number } | { ok: false; kind: "refused" | "failed"; reason: string };

/** Resolves the host once and checks every address it answers; the first is the one to connect to. */
async function resolvedAddress(host: string, allowLocalNetwork: boolean, resolve: HostResolver): Promise<Resolution> {
  let addresses: { address: string; family: number }[];
  const family = isIP(host);
  if (family) addresses = [{ address: host, family }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, kind: "failed", reason: outboundReasons.unresolvable };
    }
  }
  if (addresses.length === 0) return { ok: false, kind: "failed", reason: outboundReasons.unresolvable };
  for (const { address } of addresses) {
    const problem = addressProblem(address, allowLocalNetwork);
    if (problem) return { ok: false, kind: "refused", reason: problem };
  }
  return { ok: true, ...addresses[0]! };
}

/**
 * Why a request to `url` would be refused, or null: the URL's own rules and, for a host name, every address it
 * resolves to now. For checking a URL when it is saved (a hook's), as GitLab's `PublicUrlValidator` does: a host
 * that does not resolve is refused too.
 */
export async function outboundUrlProblem(url: string, allowLocalNetwork: boolean, options: OutboundOptions = {}): Promise<string | null> {
  const checked = checkedUrl(url);
  if (!checked.ok) return checked.reason;
  const resolution = await resolvedAddress(checked.host, allowLocalNetwork, options.resolve ?? systemResolver);
  return resolution.ok ? null : resolution.reason;
}

/** Headers the exchange itself owns: a caller's would contradict the body sent or keep the connection waiting. */
const ownedHeaders = new Set(["host", "content-length", "transfer-encoding", "connection", "expect", "keep-alive", "upgrade", "te", "trailer"]);

/** A person's account of a network error. */
function failureReason(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  switch (code) {
    case "ECONNREFUSED":
      return "Connection refused";
    case "ECONNRESET":
    case "EPIPE":
      return "Connection reset by peer";
    case "EHOSTUNREACH":
      return "No route to host";
    case "ENETUNREACH":
      return "Network is unreachable";
    case "ETIMEDOUT":
      return "Connection timed out";
    case "HPE_INVALID_CONSTANT":
    case "HPE_INVALID_VERSION":
    case "HPE_INVALID_STATUS":
    case "HPE_INVALID_HEADER_TOKEN":
      return "The server's answer is not valid HTTP";
  }
  const text = message || "Connection failed";
  if (code && /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/.test(code)) return `SSL error: ${text}`;
  return text;
}

function headersOf(response: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/**
 * Sends one request to a URL someone else chose, under the rules above. Redirects are not followed (a 3xx is the
 * answer); the response body is read up to `maxResponseBytes`; the whole exchange, name resolution included, ends
 * at `timeoutMs`. Network trouble is an answer (`failed`), never an exception.
 */
export async function sendOutbound(request: OutboundRequest, options: OutboundOptions = {}): Promise<OutboundResult> {
  const checked = checkedUrl(request.url);
  if (!checked.ok) return { kind: "refused", reason: checked.reason };
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  const timedOut = () => ({ kind: "failed" as const, reason: outboundReasons.timedOut(request.timeoutMs), durationMs: elapsed() });

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), request.timeoutMs);
    timer.unref();
  });
  try {
    const resolver = options.resolve ?? systemResolver;
    const resolving = options.session
      ? options.session.resolve(checked.host, request.allowLocalNetwork, resolver)
      : resolvedAddress(checked.host, request.allowLocalNetwork, resolver);
    const resolution = await Promise.race([resolving, deadline]);
    if (resolution === "late") return timedOut();
    if (!resolution.ok) {
      return resolution.kind === "refused" ? { kind: "refused", reason: resolution.reason } : { kind: "failed", reason: resolution.reason, durationMs: elapsed() };
    }
    const agent = options.session?.agentFor(checked.url.protocol, resolution, request.verifyTls !== false);
    const exchange = exchangeWith(checked.url, resolution, request, agent);
    const outcome = await Promise.race([exchange.result, deadline]);
    if (outcome === "late") {
      exchange.abort();
      return timedOut();
    }
    if (outcome.kind === "response" || outcome.kind === "failed") return { ...outcome, durationMs: elapsed() };
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

type ExchangeOutcome =
  | { kind: "response"; status: number; headers: Record<string, string>; body: string; truncated: boolean }
  | { kind: "failed"; reason: string }
  | { kind: "refused"; reason: string };

/**
 * The HTTP exchange itself, connected to the checked address whatever the name would resolve to now: on a connection
 * of its own, closed after it, or on the session's `agent` (kept open to that same address).
 */
function exchangeWith(url: URL, target: CheckedAddress, sent: OutboundRequest, agent: http.Agent | undefined): { result: Promise<ExchangeOutcome>; abort: () => void } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(sent.headers)) {
    if (!ownedHeaders.has(name.toLowerCase())) headers[name] = value;
  }
  if (!agent) headers.Connection = "close";
  if (sent.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(sent.body));

  let outgoing: http.ClientRequest | undefined;
  const result = new Promise<ExchangeOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: ExchangeOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const transport = url.protocol === "https:" ? https : http;
    try {
      const connection = { lookup: pinnedLookup(target), agent: agent ?? false, rejectUnauthorized: sent.verifyTls !== false };
      outgoing = transport.request(url, { method: sent.method, headers, ...connection }, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () =>
          settle({ kind: "response", status: response.statusCode ?? 0, headers: headersOf(response), body: Buffer.concat(chunks).toString("utf8"), truncated });
        response.on("data", (chunk: Buffer) => {
          if (settled) return;
          const room = sent.maxResponseBytes - size;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, Math.max(0, room)));
            size += Math.max(0, room);
            truncated = true;
            finish();
            outgoing?.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        response.on("end", finish);
        response.on("error", (error) => settle({ kind: "failed", reason: failureReason(error) }));
        response.on("aborted", () => settle({ kind: "failed", reason: "Connection reset by peer" }));
      });
    } catch (error) {
      // Only the request's own content throws here (a header name or value HTTP cannot carry): nothing was sent.
      settle({ kind: "refused", reason: `The request is invalid: ${(error as Error).message}` });
      return;
    }
    outgoing.on("error", (error) => settle({ kind: "failed", reason: failureReason(error) }));
    outgoing.end(sent.body);
  });
  return { result, abort: () => outgoing?.destroy() };
}
