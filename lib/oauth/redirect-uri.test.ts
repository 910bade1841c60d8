import { describe, expect, it } from "vitest";
import { isRegisteredRedirectUri, redirectUriMatches } from "./redirect-uri";

describe("redirect URI matching", () => {
  it("matches any other URI only as the same string", () => {
    expect(redirectUriMatches("https://client.example/cb", "https://client.example/cb")).toBe(true);
    expect(redirectUriMatches("https://client.example:8443/cb", "https://client.example/cb")).toBe(false);
    expect(redirectUriMatches("https://client.example/cb/", "https://client.example/cb")).toBe(false);
    expect(redirectUriMatches("https://client.example/cb?x=1", "https://client.example/cb")).toBe(false);
    expect(redirectUriMatches("com.example.app:/callback", "com.example.app:/callback")).toBe(true);
  });

  it("lets only the port of a loopback IP redirect URI vary (RFC 8252 §7.3)", () => {
    expect(redirectUriMatches("http://127.0.0.1:49152", "http://127.0.0.1")).toBe(true);
    expect(redirectUriMatches("http://127.0.0.1", "http://127.0.0.1:8080")).toBe(true);
    expect(redirectUriMatches("http://127.0.0.1:49152/callback", "http://127.0.0.1:8080/callback")).toBe(true);
    expect(redirectUriMatches("http://127.0.0.1:49152/callback?app=1", "http://127.0.0.1/callback?app=1")).toBe(true);
    expect(redirectUriMatches("http://127.8.9.10:1/cb", "http://127.8.9.10/cb")).toBe(true);
    expect(redirectUriMatches("http://[::1]:49152/cb", "http://[::1]/cb")).toBe(true);
    expect(redirectUriMatches("http://[::ffff:127.0.0.1]:49152/cb", "http://[::ffff:127.0.0.1]/cb")).toBe(true);
    expect(redirectUriMatches("https://127.0.0.1:49152/cb", "https://127.0.0.1/cb")).toBe(true);
    expect(redirectUriMatches("HTTP://127.0.0.1:49152/cb", "http://127.0.0.1/cb")).toBe(true);
  });

  it("keeps everything else of a loopback redirect URI exact", () => {
    expect(redirectUriMatches("http://127.0.0.1:49152/", "http://127.0.0.1")).toBe(false);
    expect(redirectUriMatches("http://127.0.0.1:49152/other", "http://127.0.0.1/cb")).toBe(false);
    expect(redirectUriMatches("http://127.0.0.1:49152/cb?x=1", "http://127.0.0.1/cb")).toBe(false);
    expect(redirectUriMatches("https://127.0.0.1:49152/cb", "http://127.0.0.1/cb")).toBe(false);
    expect(redirectUriMatches("http://127.0.0.2:49152/cb", "http://127.0.0.1/cb")).toBe(false);
    expect(redirectUriMatches("http://[::1]:49152/cb", "http://127.0.0.1/cb")).toBe(false);
    expect(redirectUriMatches("http://attacker@127.0.0.1:49152/cb", "http://127.0.0.1/cb")).toBe(false);
    expect(redirectUriMatches("http://127.0.0.1:49152@evil.example/cb", "http://127.0.0.1/cb")).toBe(false);
    expect(redirectUriMatches("http://127.0.0.1:49152/cb#x", "http://127.0.0.1/cb")).toBe(false);
    expect(redirectUriMatches("http://127.0.0.1:port/cb", "http://127.0.0.1/cb")).toBe(false);
  });

  it("does not count names or other addresses as loopback, as Doorkeeper does not", () => {
    expect(redirectUriMatches("http://localhost:49152/cb", "http://localhost/cb")).toBe(false);
    expect(redirectUriMatches("http://localhost:49152/cb", "http://localhost:8080/cb")).toBe(false);
    expect(redirectUriMatches("http://127.1:49152/cb", "http://127.1/cb")).toBe(false);
    expect(redirectUriMatches("http://127.000.0.1:49152/cb", "http://127.000.0.1/cb")).toBe(false);
    expect(redirectUriMatches("http://10.0.0.1:49152/cb", "http://10.0.0.1/cb")).toBe(false);
    expect(redirectUriMatches("http://[::2]:49152/cb", "http://[::2]/cb")).toBe(false);
  });

  it("matches against any of the registered URIs", () => {
    expect(isRegisteredRedirectUri("http://127.0.0.1:5000", ["https://client.example/cb", "http://127.0.0.1"])).toBe(true);
    expect(isRegisteredRedirectUri("http://127.0.0.1:5000", ["https://client.example/cb"])).toBe(false);
    expect(isRegisteredRedirectUri("http://127.0.0.1:5000", [])).toBe(false);
  });
});
