import "server-only";
import { constantTimeEqual, sha256Hex } from "@/lib/crypto";
import type { Database } from "@/lib/db";
import type { OAuthApplicationRow } from "@/lib/db/schema";
import { findApplicationByUid } from "./applications";
import { invalidClient, invalidRequest } from "./errors";
import { refuseUnstorable } from "./http";

export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
}

/**
 * Client credentials from HTTP Basic (`client_secret_basic`) or the body (`client_secret_post`). Using both
 * at once is refused (RFC 6749 §2.3.1: one method per request). Basic credentials are parameters read here, so they
 * are refused as body parameters are when they hold what cannot be looked up.
 */
export function readClientCredentials(request: Request, params: Record<string, string | undefined>): ClientCredentials | null {
  const authorization = request.headers.get("authorization");
  const basic = authorization?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i)?.[1];
  if (basic) {
    if (params.client_secret !== undefined) throw invalidRequest("Use only one client authentication method.");
    const decoded = Buffer.from(basic, "base64").toString("utf8");
    const separator = decoded.indexOf(":");
    if (separator < 0) throw invalidClient();
    const { client_id: clientId, client_secret: clientSecret } = refuseUnstorable({
      client_id: safeDecode(decoded.slice(0, separator)),
      client_secret: safeDecode(decoded.slice(separator + 1)),
    });
    if (params.client_id !== undefined && params.client_id !== clientId) throw invalidClient();
    return { clientId, clientSecret: clientSecret === "" ? undefined : clientSecret };
  }
  if (params.client_id === undefined || params.client_id === "") return null;
  return { clientId: params.client_id, clientSecret: params.client_secret || undefined };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    throw invalidClient();
  }
}

/**
 * The application the credentials prove, or `invalid_client` (401). Public applications identify themselves by
 * client_id alone; confidential ones must present their secret. A wrong secret is refused whatever the type.
 * `expected` is the application the caller already read with what the request presented (the code's or the refresh
 * token's); when the credentials name it, it is checked without reading it again.
 *
 * Secrets are 32 random bytes, so their SHA-256 digest is all the protection a stored secret needs (nobody can guess
 * a preimage), and comparing digests in constant time leaks nothing: no slow password hash on the token endpoint.
 */
export async function authenticateClient(
  db: Database,
  credentials: ClientCredentials,
  expected: OAuthApplicationRow | null = null,
): Promise<OAuthApplicationRow> {
  const application = expected?.uid === credentials.clientId ? expected : await findApplicationByUid({ db }, credentials.clientId);
  if (!application) throw invalidClient();
  if (credentials.clientSecret === undefined) {
    if (application.confidential) throw invalidClient();
    return application;
  }
  if (!constantTimeEqual(sha256Hex(credentials.clientSecret), application.secretDigest)) throw invalidClient();
  return application;
}

/**
 * Authenticates the client when the request names one; `required` makes its absence an error too. `expected` as for
 * `authenticateClient`.
 */
export async function authenticateClientIfPresent(
  db: Database,
  request: Request,
  params: Record<string, string | undefined>,
  { required, expected = null }: { required: boolean; expected?: OAuthApplicationRow | null },
): Promise<OAuthApplicationRow | null> {
  const credentials = readClientCredentials(request, params);
  if (!credentials) {
    if (required) throw invalidClient();
    return null;
  }
  return authenticateClient(db, credentials, expected);
}
