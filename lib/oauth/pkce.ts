import { createHash } from "node:crypto";

/**
 * The longest code verifier (and `plain` challenge) accepted. RFC 7636 allows 128 characters of its unreserved set,
 * but clients in the wild send other verifiers (git-credential-oauth sends 44 characters of standard base64, with
 * `+`, `/` and `=`), and Doorkeeper accepts any verifier whose transform matches, so only the length is bounded: far
 * above any real client's, and low enough that no request can make us hash a large value.
 */
export const maxCodeVerifierLength = 1024;

export type CodeChallengeMethod = "plain" | "S256";

/** An S256 challenge is the unpadded base64url of a SHA-256 digest: exactly 43 characters. */
const s256ChallengePattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * Whether a challenge can ever be answered: an S256 challenge must be a digest's encoding (any other value matches no
 * verifier), a `plain` one is the verifier itself, so any value a verifier may hold.
 */
export function isAnswerableChallenge(challenge: string, method: CodeChallengeMethod): boolean {
  return method === "S256" ? s256ChallengePattern.test(challenge) : challenge.length > 0 && challenge.length <= maxCodeVerifierLength;
}

export function codeChallengeFor(verifier: string, method: CodeChallengeMethod): string {
  return method === "plain" ? verifier : createHash("sha256").update(verifier).digest("base64url");
}

/** Whether a verifier answers a challenge, as Doorkeeper decides: by its transform alone, whatever its characters. */
export function verifierMatches(verifier: string, challenge: string, method: CodeChallengeMethod): boolean {
  return verifier.length > 0 && verifier.length <= maxCodeVerifierLength && codeChallengeFor(verifier, method) === challenge;
}
