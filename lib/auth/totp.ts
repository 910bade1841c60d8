import "server-only";
import { Secret, TOTP } from "otpauth";

const issuer = "GitLab-compatible service";
const periodSeconds = 30;

function totpFor(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer, label, algorithm: "SHA1", digits: 6, period: periodSeconds, secret: Secret.fromBase32(secretBase32) });
}

export function generateTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpUri(secretBase32: string, label: string): string {
  return totpFor(secretBase32, label).toString();
}

/**
 * The time step a code belongs to, if it is valid now (±1 step of clock drift), else null. Callers store the step
 * of the last accepted code and refuse codes at or before it, so a code cannot be replayed.
 */
export function matchTotpStep(secretBase32: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpFor(secretBase32, "").validate({ token: code, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / periodSeconds) + delta;
}

/** A valid code for a secret at a time: for tests and for clocks we control. */
export function totpCodeAt(secretBase32: string, at: Date): string {
  return totpFor(secretBase32, "").generate({ timestamp: at.getTime() });
}
