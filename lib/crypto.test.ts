import { describe, expect, it } from "vitest";
import { constantTimeEqual, generateSecret, sha256Hex } from "./crypto";

describe("constantTimeEqual", () => {
  it("is true only for identical strings", () => {
    expect(constantTimeEqual("secret", "secret")).toBe(true);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("secret", "secreT")).toBe(false);
    expect(constantTimeEqual("secret", "secret ")).toBe(false);
    expect(constantTimeEqual("secret", "")).toBe(false);
    expect(constantTimeEqual("", "secret")).toBe(false);
    expect(constantTimeEqual("é", "e\u0301")).toBe(false);
  });
});

describe("secrets", () => {
  it("generates prefixed, unpredictable secrets", () => {
    const secret = generateSecret("glpat-");
    expect(secret).toMatch(/^glpat-[A-Za-z0-9_-]{43}$/);
    expect(generateSecret("glpat-")).not.toBe(secret);
    expect(generateSecret()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("digests with SHA-256", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
