import { OAuthError } from "./errors";
import { defaultDescription } from "./errors";

/** Longer than any URL a browser keeps; a resource indicator is stored with every grant. */
const maxResourceLength = 2048;

/**
 * RFC 8707 §2: what makes a `resource` parameter unusable, or null when it is a usable resource indicator. It must be
 * an absolute URI without a fragment; we bound its length, since it is stored with the grant.
 */
export function resourceProblem(value: string): string | null {
  if (value.length > maxResourceLength) return `The resource must be at most ${maxResourceLength} characters.`;
  if (value.includes("#")) return "The resource must not contain a fragment.";
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return "The resource must be an absolute URI.";
  }
  if ((parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname === "") return "The resource must be an absolute URI.";
  return null;
}

/** `invalid_target` (RFC 8707 §2), with what was wrong. */
export function invalidTarget(description: string = defaultDescription("invalid_target")): OAuthError {
  return new OAuthError("invalid_target", description);
}

/**
 * The resource a token request names, checked against the grant's: a token request may repeat the authorized
 * resource (or say nothing, keeping it) but never name another one, since one grant's tokens have one audience.
 */
export function tokenRequestResource(requested: string | undefined, granted: string | null): string | null {
  if (requested === undefined) return granted;
  const problem = resourceProblem(requested);
  if (problem) throw invalidTarget(problem);
  if (requested !== granted) {
    throw invalidTarget(
      granted === null
        ? "The authorization was given for no particular resource; request a resource at the authorization endpoint."
        : "The resource must be the one the authorization was given for.",
    );
  }
  return granted;
}
