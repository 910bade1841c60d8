import { createHash } from "node:crypto";

/** RFC 7636 §4.1: 43 to 128 characters from the unreserved set. */
const verifierPattern = /^[A-Za-z0-9\-._~]{43,128}$/;

export type CodeChallengeMethod = "plain" | "S256";

export function isValidCodeVerifier(verifier: string): boolean {
  return verifierPattern.test(verifier);
}

export function codeChallengeFor(verifier: string, method: CodeChallengeMethod): string {
  return method === "plain" ? verifier : createHash("sha256").update(verifier).digest("base64url");
}

/** Whether a verifier answers a challenge. Lengths are checked first; the values are not secret after use. */
export function verifierMatches(verifier: string, challenge: string, method: CodeChallengeMethod): boolean {
  return isValidCodeVerifier(verifier) && codeChallengeFor(verifier, method) === challenge;
}
