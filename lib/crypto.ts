import "server-only";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A new secret: 32 random bytes, base64url, behind a prefix that tells people (and secret scanners) what it is. */
export function generateSecret(prefix = ""): string {
  return prefix + randomBytes(32).toString("base64url");
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Compares two strings without leaking, through timing, how much of them matched. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash("sha256").update(a).digest();
  const right = createHash("sha256").update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
