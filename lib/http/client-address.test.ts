import { describe, expect, it } from "vitest";
import { clientAddress, isMonitoringRequest, peerAddressHeader } from "./client-address";

describe("clientAddress", () => {
  const request = (headers: Record<string, string>) => new Headers(headers);

  it("is the socket's peer when the peer is not a trusted proxy, whatever X-Forwarded-For claims", () => {
    expect(clientAddress(request({ [peerAddressHeader]: "203.0.113.5", "x-forwarded-for": "198.51.100.1" }))).toBe("203.0.113.5");
  });

  it("behind trusted proxies, is the nearest forwarded address that is not one", () => {
    const headers = request({ [peerAddressHeader]: "127.0.0.1", "x-forwarded-for": "192.0.2.44, 198.51.100.7, 10.1.2.3" });
    // 10.1.2.3 is a proxy of ours; 198.51.100.7 reached it, and anything left of that is the client's own claim.
    expect(clientAddress(headers)).toBe("198.51.100.7");
  });

  it("is the farthest proxy when every hop is trusted, and the peer when nothing was forwarded", () => {
    expect(clientAddress(request({ [peerAddressHeader]: "::1", "x-forwarded-for": "10.0.0.9,192.168.1.2" }))).toBe("10.0.0.9");
    expect(clientAddress(request({ [peerAddressHeader]: "192.168.1.2" }))).toBe("192.168.1.2");
  });

  it("reads IPv4 peers of dual-stack sockets in their IPv4 form", () => {
    expect(clientAddress(request({ [peerAddressHeader]: "::ffff:203.0.113.9" }))).toBe("203.0.113.9");
    expect(clientAddress(request({ [peerAddressHeader]: "::ffff:127.0.0.1", "x-forwarded-for": "2001:db8::1" }))).toBe("2001:db8::1");
  });

  it("without the peer header (next dev), takes the socket address Next.js forwards", () => {
    expect(clientAddress({ "x-forwarded-for": "127.0.0.1" })).toBe("127.0.0.1");
    expect(clientAddress({ "x-forwarded-for": ["198.51.100.3", "127.0.0.1"] })).toBe("198.51.100.3");
  });

  it("is null when a request says nothing of where it comes from", () => {
    expect(clientAddress(request({}))).toBeNull();
    expect(clientAddress({})).toBeNull();
  });
});

describe("isMonitoringRequest", () => {
  const from = (peer: string, forwarded?: string) => new Headers({ [peerAddressHeader]: peer, ...(forwarded ? { "x-forwarded-for": forwarded } : {}) });

  it("takes loopback, as GitLab's default monitoring allowlist", () => {
    expect(isMonitoringRequest(from("127.0.0.1"))).toBe(true);
    expect(isMonitoringRequest(from("127.8.9.10"))).toBe(true);
    expect(isMonitoringRequest(from("::1"))).toBe(true);
    expect(isMonitoringRequest(from("::ffff:127.0.0.1"))).toBe(true);
  });

  it("refuses any other address, also when a proxy on this host forwards it, and a request of no address", () => {
    expect(isMonitoringRequest(from("203.0.113.5"))).toBe(false);
    expect(isMonitoringRequest(from("10.0.0.9"))).toBe(false);
    expect(isMonitoringRequest(from("127.0.0.1", "198.51.100.7"))).toBe(false);
    expect(isMonitoringRequest(from("203.0.113.5", "127.0.0.1"))).toBe(false);
    expect(isMonitoringRequest(new Headers())).toBe(false);
  });
});
