import { BlockList, isIPv4, isIPv6 } from "node:net";

/** The parts of an absolute URI with an authority, as written (nothing normalized). */
interface UriParts {
  scheme: string;
  userinfo: string | null;
  host: string;
  /** Path and query, exactly as written. */
  rest: string;
}

const withAuthority = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^#]*)$/;

function uriParts(uri: string): UriParts | null {
  const match = withAuthority.exec(uri);
  if (!match) return null;
  const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
  const at = authority.lastIndexOf("@");
  const userinfo = at < 0 ? null : authority.slice(0, at);
  const hostAndPort = authority.slice(at + 1);
  const hostEnd = hostAndPort.startsWith("[") ? hostAndPort.indexOf("]") + 1 : hostAndPort.search(/:|$/);
  if (hostEnd <= 0) return null;
  const port = hostAndPort.slice(hostEnd);
  if (port !== "" && !/^:\d*$/.test(port)) return null;
  return { scheme: scheme.toLowerCase(), userinfo, host: hostAndPort.slice(0, hostEnd), rest };
}

const loopbackAddresses = new BlockList();
loopbackAddresses.addSubnet("127.0.0.0", 8, "ipv4");
loopbackAddresses.addAddress("::1", "ipv6");
loopbackAddresses.addSubnet("::ffff:127.0.0.0", 104, "ipv6");

/**
 * A loopback IP literal (127.0.0.0/8, `[::1]`), as Doorkeeper's `loopback_uri?` decides with `IPAddr#loopback?`.
 * `localhost` is a name, not an address: Doorkeeper does not count it, and neither do we (RFC 8252 §8.3 advises
 * against it, since the name may resolve elsewhere).
 */
function isLoopbackHost(host: string): boolean {
  if (isIPv4(host)) return loopbackAddresses.check(host, "ipv4");
  const inner = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : "";
  return isIPv6(inner) && loopbackAddresses.check(inner, "ipv6");
}

/**
 * Whether a redirect URI sent by a client is one of the application's registered URIs (Doorkeeper's
 * `URIChecker.matches?`): the same string, or, when both name the same loopback IP literal, the same URI on any port.
 * RFC 8252 §7.3: native apps listen on whatever port the system gives them, so the authorization server must allow any
 * port for loopback IP redirect URIs. Only the port may differ: scheme, user information, host, path and query are
 * compared as written (an empty path is not `/`).
 */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  const asked = uriParts(requested);
  const allowed = uriParts(registered);
  if (!asked || !allowed || !isLoopbackHost(asked.host) || !isLoopbackHost(allowed.host)) return false;
  return asked.scheme === allowed.scheme && asked.userinfo === allowed.userinfo && asked.host === allowed.host && asked.rest === allowed.rest;
}

/** Whether a redirect URI sent by a client matches any of the application's registered URIs. */
export function isRegisteredRedirectUri(requested: string, registered: readonly string[]): boolean {
  return registered.some((uri) => redirectUriMatches(requested, uri));
}
