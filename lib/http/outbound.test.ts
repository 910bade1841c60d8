import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressProblem, literalUrlProblem, outboundReasons, outboundUrlProblem, sendOutbound, type HostResolver, type OutboundRequest } from "./outbound";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A web server on this machine; each test says how it answers. */
let server: Server;
let port: number;
let handler: Handler = (_request, _body, response) => response.end();
let received: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function request(overrides: Partial<OutboundRequest>): OutboundRequest {
  return { url: `http://127.0.0.1:${port}/hook`, method: "GET", headers: {}, timeoutMs: 5000, maxResponseBytes: 1024, allowLocalNetwork: true, ...overrides };
}

/** A resolver that answers every name with `addresses`, counting how often it is asked. */
function resolverAnswering(...addresses: string[]): HostResolver & { calls: number } {
  const resolver = Object.assign(
    async () => {
      resolver.calls++;
      return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    },
    { calls: 0 },
  );
  return resolver;
}

describe("addresses", () => {
  const refusedRanges: [string, string][] = [
    ["127.0.0.2", outboundReasons.loopback],
    ["127.255.255.254", outboundReasons.loopback],
    ["10.0.0.1", outboundReasons.localNetwork],
    ["10.255.255.255", outboundReasons.localNetwork],
    ["172.16.0.1", outboundReasons.localNetwork],
    ["172.31.255.254", outboundReasons.localNetwork],
    ["192.168.1.1", outboundReasons.localNetwork],
    ["169.254.169.254", outboundReasons.linkLocal],
    ["169.254.0.1", outboundReasons.linkLocal],
    ["100.64.0.1", outboundReasons.sharedAddress],
    ["100.127.255.254", outboundReasons.sharedAddress],
    ["255.255.255.255", outboundReasons.broadcast],
    ["224.0.0.1", outboundReasons.multicast],
    ["239.255.255.250", outboundReasons.multicast],
    ["240.0.0.1", outboundReasons.reserved],
    ["192.0.2.1", outboundReasons.reserved],
    ["198.51.100.7", outboundReasons.reserved],
    ["203.0.113.9", outboundReasons.reserved],
    ["198.18.0.1", outboundReasons.reserved],
    ["192.0.0.8", outboundReasons.reserved],
    ["0.0.0.0", outboundReasons.localhost],
    ["0.1.2.3", outboundReasons.localhost],
    ["::", outboundReasons.localhost],
    ["fc00::1", outboundReasons.localNetwork],
    ["fd12:3456::1", outboundReasons.localNetwork],
    ["fec0::1", outboundReasons.localNetwork],
    ["fe80::1", outboundReasons.linkLocal],
    ["febf::1", outboundReasons.linkLocal],
    ["ff02::1", outboundReasons.multicast],
    ["2001:db8::1", outboundReasons.reserved],
    ["2001::1", outboundReasons.reserved],
    ["100::1", outboundReasons.reserved],
    ["4000::1", outboundReasons.reserved],
    // IPv6 forms that carry an IPv4 address are judged as it.
    ["::ffff:127.0.0.2", outboundReasons.loopback],
    ["::ffff:7f00:2", outboundReasons.loopback],
    ["::ffff:10.0.0.1", outboundReasons.localNetwork],
    ["::ffff:a9fe:a9fe", outboundReasons.linkLocal],
    ["::ffff:0.0.0.0", outboundReasons.localhost],
    ["::127.0.0.2", outboundReasons.loopback],
    ["::7f00:2", outboundReasons.loopback],
    ["::192.168.0.1", outboundReasons.localNetwork],
    ["64:ff9b::127.0.0.2", outboundReasons.loopback],
    ["64:ff9b::7f00:2", outboundReasons.loopback],
    ["64:ff9b::a9fe:a9fe", outboundReasons.linkLocal],
    ["64:ff9b::10.1.1.1", outboundReasons.localNetwork],
    ["64:ff9b:1::1", outboundReasons.localNetwork],
    ["2002:7f00:2::1", outboundReasons.loopback],
    ["2002:c0a8:101::1", outboundReasons.localNetwork],
    ["[::ffff:127.0.0.2]", outboundReasons.loopback],
  ];

  it.each(refusedRanges)("refuses %s: %s", (address, reason) => {
    expect(addressProblem(address, false)).toBe(reason);
  });

  it("refuses this machine's own addresses as localhost, loopback ones included, as GitLab does", () => {
    expect(addressProblem("127.0.0.1", false)).toBe(outboundReasons.localhost);
    expect(addressProblem("::ffff:127.0.0.1", false)).toBe(outboundReasons.localhost);
    expect(addressProblem("::ffff:7f00:1", false)).toBe(outboundReasons.localhost);
    expect(addressProblem("64:ff9b::7f00:1", false)).toBe(outboundReasons.localhost);
    expect([outboundReasons.localhost, outboundReasons.loopback]).toContain(addressProblem("::1", false));
    for (const entries of Object.values(networkInterfaces())) {
      for (const { address } of entries ?? []) expect(addressProblem(address, false), address).toBe(outboundReasons.localhost);
    }
  });

  it("allows public unicast addresses, and public IPv4 addresses carried by IPv6 ones", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::6810:85e5", "2a00:1450:4001:82b::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]) {
      expect(addressProblem(address, false), address).toBeNull();
    }
  });

  it("with the local network allowed, allows every range but the unspecified address", () => {
    for (const [address] of refusedRanges) {
      const unspecified = ["0.0.0.0", "0.1.2.3", "::", "::ffff:0.0.0.0"].includes(address);
      expect(addressProblem(address, true), address).toBe(unspecified ? outboundReasons.localhost : null);
    }
    expect(addressProblem("127.0.0.1", true)).toBeNull();
    expect(addressProblem("::1", true)).toBeNull();
  });

  it("reads anything but an IP address as an invalid host", () => {
    expect(addressProblem("localhost", true)).toBe(outboundReasons.hostname);
    expect(addressProblem("1.2.3", false)).toBe(outboundReasons.hostname);
    expect(addressProblem("1.2.3.256", false)).toBe(outboundReasons.hostname);
  });
});

describe("checking a URL before it is saved", () => {
  const cases: [string, string][] = [
    ["ftp://example.com/file", outboundReasons.scheme],
    ["javascript:alert(1)", outboundReasons.scheme],
    ["file:///etc/passwd", outboundReasons.scheme],
    ["gopher://127.0.0.1:6379/_INFO", outboundReasons.scheme],
    ["not a url", outboundReasons.invalidUri],
    ["http://exa\nmple.com/", outboundReasons.invalidUri],
    [" http://example.com/", outboundReasons.invalidUri],
    ["http://user:secret@example.com/", outboundReasons.credentials],
    ["http://user@example.com/", outboundReasons.credentials],
    ["http://-example.com/", outboundReasons.hostname],
    // Every spelling of 127.0.0.1 the URL parser knows becomes 127.0.0.1, this machine's own address.
    ["http://127.0.0.1/", outboundReasons.localhost],
    ["http://2130706433/", outboundReasons.localhost],
    ["http://0x7f.1/", outboundReasons.localhost],
    ["http://0x7f000001/", outboundReasons.localhost],
    ["http://0177.0.0.1/", outboundReasons.localhost],
    ["http://017700000001/", outboundReasons.localhost],
    ["http://127.1/", outboundReasons.localhost],
    ["http://127.0.0.1./", outboundReasons.localhost],
    ["http://0x7f.0.0.2/", outboundReasons.loopback],
    ["http://[::ffff:127.0.0.1]/", outboundReasons.localhost],
    ["http://[::ffff:7f00:1]/", outboundReasons.localhost],
    ["http://[64:ff9b::127.0.0.2]/", outboundReasons.loopback],
    ["http://0/", outboundReasons.localhost],
    ["http://[::]/", outboundReasons.localhost],
    ["http://169.254.169.254/latest/meta-data/", outboundReasons.linkLocal],
    ["http://0xa9fea9fe/", outboundReasons.linkLocal],
    ["https://10.0.0.1/", outboundReasons.localNetwork],
    ["http://[fd00::1]/", outboundReasons.localNetwork],
  ];

  it.each(cases)("refuses %j: %s", async (url, reason) => {
    expect(await outboundUrlProblem(url, false, { resolve: resolverAnswering("93.184.216.34") })).toBe(reason);
  });

  it("refuses a host name when any address it resolves to is blocked, and one that does not resolve", async () => {
    expect(await outboundUrlProblem("https://hooks.example/", false, { resolve: resolverAnswering("93.184.216.34") })).toBeNull();
    expect(await outboundUrlProblem("https://hooks.example/", false, { resolve: resolverAnswering("93.184.216.34", "10.1.2.3") })).toBe(outboundReasons.localNetwork);
    expect(await outboundUrlProblem("https://hooks.example/", false, { resolve: resolverAnswering("fe80::1") })).toBe(outboundReasons.linkLocal);
    expect(await outboundUrlProblem("https://hooks.example/", false, { resolve: resolverAnswering() })).toBe(outboundReasons.unresolvable);
    const failing: HostResolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await outboundUrlProblem("https://hooks.example/", false, { resolve: failing })).toBe(outboundReasons.unresolvable);
    expect(await outboundUrlProblem("https://hooks.example/", true, { resolve: resolverAnswering("10.1.2.3") })).toBeNull();
  });

  it("resolves localhost with the system's resolver and refuses it", async () => {
    expect([outboundReasons.localhost, outboundReasons.loopback]).toContain(await outboundUrlProblem(`http://localhost:${port}/`, false));
    expect(await outboundUrlProblem(`http://localhost:${port}/`, true)).toBeNull();
  });
});

describe("sending", () => {
  it("refuses 127.0.0.1 without the switch, sending nothing, and reaches it with the switch", async () => {
    handler = (_request, _body, response) => response.writeHead(200, { "Content-Type": "text/plain", "X-Answer": "yes" }).end("hello");
    const before = received.length;
    expect(await sendOutbound(request({ allowLocalNetwork: false }))).toEqual({ kind: "refused", reason: outboundReasons.localhost });
    expect(await sendOutbound(request({ url: `http://localhost:${port}/hook`, allowLocalNetwork: false }))).toMatchObject({ kind: "refused" });
    expect(received.length).toBe(before);

    const result = await sendOutbound(request({ allowLocalNetwork: true }));
    expect(result).toMatchObject({ kind: "response", status: 200, body: "hello", truncated: false, headers: { "content-type": "text/plain", "x-answer": "yes", connection: "close" } });
    expect(received.length).toBe(before + 1);
  });

  it("sends the method, headers and body as given, with its own Content-Length and without Expect", async () => {
    handler = (_request, _body, response) => response.writeHead(201).end();
    received = [];
    const body = JSON.stringify({ object_kind: "push", note: "é" });
    const result = await sendOutbound(
      request({
        method: "POST",
        url: `http://127.0.0.1:${port}/hooks/1?x=1`,
        headers: { "Content-Type": "application/json", "X-Gitlab-Event": "Push Hook", Expect: "100-continue", "Content-Length": "1" },
        body,
      }),
    );
    expect(result).toMatchObject({ kind: "response", status: 201, body: "" });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: "POST", url: "/hooks/1?x=1", body });
    expect(received[0]!.headers).toMatchObject({ "content-type": "application/json", "x-gitlab-event": "Push Hook", "content-length": String(Buffer.byteLength(body)), connection: "close" });
    expect(received[0]!.headers.expect).toBeUndefined();

    await sendOutbound(request({ method: "PUT", body: "" }));
    expect(received[1]).toMatchObject({ method: "PUT", body: "" });
    expect(received[1]!.headers["content-length"]).toBe("0");
  });

  it("connects to the address the name was checked at, resolving it once", async () => {
    handler = (_request, _body, response) => response.writeHead(200).end("pinned");
    received = [];
    const resolver = resolverAnswering("127.0.0.1");
    // No resolver on this machine knows this name: only the checked address can have been connected to.
    const result = await sendOutbound(request({ url: `http://hooks.invalid:${port}/pinned` }), { resolve: resolver });
    expect(result).toMatchObject({ kind: "response", status: 200, body: "pinned" });
    expect(resolver.calls).toBe(1);
    expect(received[0]!.headers.host).toBe(`hooks.invalid:${port}`);
  });

  it("refuses a host name whose lookup answers a private address, among public ones too", async () => {
    const before = received.length;
    expect(await sendOutbound(request({ url: `http://hooks.example:${port}/`, allowLocalNetwork: false }), { resolve: resolverAnswering("192.168.1.20") })).toEqual({
      kind: "refused",
      reason: outboundReasons.localNetwork,
    });
    expect(
      await sendOutbound(request({ url: `http://hooks.example:${port}/`, allowLocalNetwork: false }), { resolve: resolverAnswering("93.184.216.34", "127.0.0.3") }),
    ).toEqual({ kind: "refused", reason: outboundReasons.loopback });
    expect(await sendOutbound(request({ url: "http://0.0.0.0:1/", allowLocalNetwork: true }))).toEqual({ kind: "refused", reason: outboundReasons.localhost });
    expect(received.length).toBe(before);
  });

  it("returns a redirect as the answer, without following it", async () => {
    handler = (_request, _body, response) => response.writeHead(302, { Location: `http://127.0.0.1:${port}/elsewhere` }).end();
    received = [];
    expect(await sendOutbound(request({}))).toMatchObject({ kind: "response", status: 302, headers: { location: `http://127.0.0.1:${port}/elsewhere` } });
    expect(received.map(({ url }) => url)).toEqual(["/hook"]);
  });

  it("reads the body up to the limit, then drops the connection and says it was truncated", async () => {
    handler = (_request, _body, response) => {
      response.writeHead(200);
      response.write("a".repeat(600));
      response.write("b".repeat(600));
      // Never ends: the limit, not the end of the body, finishes the exchange.
    };
    const started = Date.now();
    const result = await sendOutbound(request({ maxResponseBytes: 1000, timeoutMs: 4000 }));
    expect(result).toMatchObject({ kind: "response", status: 200, truncated: true, body: "a".repeat(600) + "b".repeat(400) });
    expect(Date.now() - started).toBeLessThan(3000);

    handler = (_request, _body, response) => response.writeHead(200).end("x".repeat(1000));
    expect(await sendOutbound(request({ maxResponseBytes: 1000 }))).toMatchObject({ truncated: false, body: "x".repeat(1000) });
  });

  it("gives up when the whole exchange takes longer than the time limit, body included", async () => {
    handler = () => undefined;
    let started = Date.now();
    let result = await sendOutbound(request({ timeoutMs: 300 }));
    expect(result).toMatchObject({ kind: "failed", reason: outboundReasons.timedOut(300) });
    expect(Date.now() - started).toBeLessThan(2000);
    expect((result as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(290);

    handler = (_request, _body, response) => {
      response.writeHead(200);
      response.write("slow");
    };
    started = Date.now();
    result = await sendOutbound(request({ timeoutMs: 300 }));
    expect(result).toMatchObject({ kind: "failed", reason: outboundReasons.timedOut(300) });
    expect(Date.now() - started).toBeLessThan(2000);

    // A resolver that stalls counts against the limit too.
    const stalling: HostResolver = () => new Promise(() => undefined);
    expect(await sendOutbound(request({ url: "http://stalls.example/", timeoutMs: 200 }), { resolve: stalling })).toMatchObject({
      kind: "failed",
      reason: outboundReasons.timedOut(200),
    });
  });

  it("reports network failures as failures, never throwing", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await sendOutbound(request({ url: `http://127.0.0.1:${closedPort}/` }))).toMatchObject({ kind: "failed", reason: "Connection refused" });

    const failing: HostResolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await sendOutbound(request({ url: "http://nowhere.invalid/" }), { resolve: failing })).toMatchObject({ kind: "failed", reason: outboundReasons.unresolvable });

    // TLS spoken to a plain HTTP server.
    const tls = await sendOutbound(request({ url: `https://127.0.0.1:${port}/` }));
    expect(tls.kind).toBe("failed");

    handler = (request, _body, response) => {
      request.socket.destroy();
      response.end();
    };
    expect(await sendOutbound(request({}))).toMatchObject({ kind: "failed" });
  });

  it("verifies the receiver's certificate unless asked not to (a hook without SSL verification)", async () => {
    const directory = mkdtempSync(path.join(tmpdir(), "outbound-tls-"));
    const [keyPath, certPath] = [path.join(directory, "key.pem"), path.join(directory, "cert.pem")];
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyPath, "-out", certPath], { stdio: "ignore" });
    const selfSigned = createHttpsServer({ key: readFileSync(keyPath), cert: readFileSync(certPath) }, (_request, response) => response.end("secure"));
    await new Promise<void>((resolve) => selfSigned.listen(0, "127.0.0.1", resolve));
    try {
      const url = `https://127.0.0.1:${(selfSigned.address() as AddressInfo).port}/`;
      expect(await sendOutbound(request({ url }))).toMatchObject({ kind: "failed", reason: expect.stringMatching(/^SSL error: /) });
      expect(await sendOutbound(request({ url, verifyTls: false }))).toMatchObject({ kind: "response", status: 200, body: "secure" });
    } finally {
      selfSigned.closeAllConnections();
      await new Promise((resolve) => selfSigned.close(resolve));
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("refuses URLs it would not send to and headers HTTP cannot carry, sending nothing", async () => {
    const before = received.length;
    expect(await sendOutbound(request({ url: "ftp://127.0.0.1/" }))).toEqual({ kind: "refused", reason: outboundReasons.scheme });
    expect(await sendOutbound(request({ url: `http://a:b@127.0.0.1:${port}/` }))).toEqual({ kind: "refused", reason: outboundReasons.credentials });
    expect(await sendOutbound(request({ headers: { "X-Bad": "a\r\nInjected: 1" } }))).toMatchObject({ kind: "refused", reason: expect.stringMatching(/^The request is invalid: /) });
    expect(received.length).toBe(before);
  });
});

describe("literalUrlProblem", () => {
  it("judges a URL to save without resolving names: its own rules, literal addresses and localhost names", () => {
    expect(literalUrlProblem("https://hooks.example.com/x", false)).toBeNull();
    expect(literalUrlProblem("https://name.invalid/x", false)).toBeNull();
    expect(literalUrlProblem("ftp://example.com", false)).toBe(outboundReasons.scheme);
    expect(literalUrlProblem("https://user:secret@example.com", false)).toBe(outboundReasons.credentials);
    expect(literalUrlProblem("http://10.0.0.1/", false)).toBe(addressProblem("10.0.0.1", false));
    expect(literalUrlProblem("http://10.0.0.1/", true)).toBeNull();
    expect(literalUrlProblem("http://api.localhost/", false)).toBe(outboundReasons.localhost);
    expect(literalUrlProblem("http://localhost:8080/", true)).toBeNull();
  });
});
