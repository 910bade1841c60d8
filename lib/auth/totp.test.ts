import { describe, expect, it } from "vitest";
import { generateTotpSecret, matchTotpStep, totpCodeAt, totpUri } from "./totp";

// RFC 6238's SHA-1 test secret ("12345678901234567890") in base32.
const rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

describe("TOTP", () => {
  it("generates RFC 6238 codes", () => {
    // RFC 6238 appendix B: T = 59 s → 94287082 (8 digits); the 6-digit code is its last six digits.
    expect(totpCodeAt(rfcSecret, new Date(59_000))).toBe("287082");
    expect(totpCodeAt(rfcSecret, new Date(1_111_111_109_000))).toBe("081804");
  });

  it("matches a code to its time step, allowing one step of drift either way", () => {
    const now = new Date("2026-01-01T12:00:10Z");
    const step = Math.floor(now.getTime() / 30_000);
    expect(matchTotpStep(rfcSecret, totpCodeAt(rfcSecret, now), now)).toBe(step);
    expect(matchTotpStep(rfcSecret, totpCodeAt(rfcSecret, new Date(now.getTime() - 30_000)), now)).toBe(step - 1);
    expect(matchTotpStep(rfcSecret, totpCodeAt(rfcSecret, new Date(now.getTime() + 30_000)), now)).toBe(step + 1);
    expect(matchTotpStep(rfcSecret, totpCodeAt(rfcSecret, new Date(now.getTime() - 60_000)), now)).toBeNull();
    expect(matchTotpStep(rfcSecret, totpCodeAt(rfcSecret, new Date(now.getTime() + 60_000)), now)).toBeNull();
  });

  it("refuses anything that is not six digits", () => {
    const now = new Date("2026-01-01T12:00:10Z");
    const code = totpCodeAt(rfcSecret, now);
    for (const bad of ["", "12345", "1234567", ` ${code}`, `${code.slice(0, 5)}a`]) {
      expect(matchTotpStep(rfcSecret, bad, now), bad).toBeNull();
    }
  });

  it("makes a fresh 160-bit base32 secret each time and an otpauth URI for it", () => {
    const first = generateTotpSecret();
    expect(first).toMatch(/^[A-Z2-7]{32}$/);
    expect(generateTotpSecret()).not.toBe(first);
    const uri = totpUri(first, "alice");
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(uri).toContain(`secret=${first}`);
    expect(uri).toContain("alice");
  });
});
