import "server-only";
import { randomBytes } from "node:crypto";
import { and, eq, lt, ne, notExists, sql } from "drizzle-orm";
import { z } from "zod";
import { mcpScope } from "@/lib/api/scopes";
import type { Ctx } from "@/lib/context";
import { sha256Hex } from "@/lib/crypto";
import type { Database } from "@/lib/db";
import { oauthApplications, oauthGrants } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { readBodyText } from "@/lib/http/body";
import { getRateLimits } from "@/lib/rate-limits/rate-limits";
import { selfRegisteredRedirectUriProblem, unverifiedApplicationPrefix } from "./applications";
import { OAuthError } from "./errors";

/** Far above any real registration (a name and a few redirect URIs), far below what could hurt. */
export const maxRegistrationBodyBytes = 16 * 1024;
/** GitLab's rule (`client_name.length < 200`). */
const maxClientNameLength = 199;
const maxRedirectUris = 20;

/** RFC 7591 §3.2.2: every refusal of the registration endpoint is `invalid_client_metadata`, 400, with what was wrong. */
function invalidClientMetadata(description: string, status = 400): OAuthError {
  return new OAuthError("invalid_client_metadata", description, status);
}

/** The metadata GitLab reads; everything else a client sends (grant_types, scope, logo_uri…) is ignored, as GitLab does. */
const clientMetadataSchema = z.object({
  client_name: z.unknown().optional(),
  redirect_uris: z.unknown().optional(),
});

export interface DynamicClientMetadata {
  clientName: string;
  redirectUris: string[];
}

/**
 * Reads a registration request's body (RFC 7591 §3.1: a JSON object), bounded, and checks what it says: a client
 * name under 200 characters, and redirect URIs (one string or a list) that GitLab's rules accept plus the schemes no
 * self-registered client may use.
 */
export async function readClientMetadata(request: Request): Promise<DynamicClientMetadata> {
  const text = await readBodyText(request, maxRegistrationBodyBytes, () =>
    invalidClientMetadata(`The request body is larger than ${maxRegistrationBodyBytes} bytes.`, 413),
  );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidClientMetadata("The request body is not valid JSON.");
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw invalidClientMetadata("The request body must be a JSON object.");
  const metadata = clientMetadataSchema.parse(json);
  return { clientName: checkedClientName(metadata.client_name), redirectUris: checkedRedirectUris(metadata.redirect_uris) };
}

function checkedClientName(value: unknown): string {
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) throw invalidClientMetadata("client_name is missing");
  if (typeof value !== "string") throw invalidClientMetadata("client_name must be a string");
  if (value.length > maxClientNameLength) throw invalidClientMetadata("client_name is too long");
  if (value.includes("\u0000")) throw invalidClientMetadata("client_name must not contain NUL characters");
  return value;
}

function checkedRedirectUris(value: unknown): string[] {
  const uris = typeof value === "string" ? [value] : value;
  if (uris === undefined || uris === null || (Array.isArray(uris) && uris.length === 0)) throw invalidClientMetadata("Redirect URI can't be blank");
  if (!Array.isArray(uris) || !uris.every((uri): uri is string => typeof uri === "string")) {
    throw invalidClientMetadata("redirect_uris must be a string or a list of strings");
  }
  if (uris.length > maxRedirectUris) throw invalidClientMetadata(`redirect_uris may list at most ${maxRedirectUris} URIs`);
  const problems = uris.map((uri) => (uri.includes("\u0000") ? "must be a valid URI." : selfRegisteredRedirectUriProblem(uri)));
  const messages = [...new Set(problems.filter((problem): problem is string => problem !== undefined))];
  if (messages.length > 0) throw invalidClientMetadata(messages.map((problem) => `Redirect URI ${problem}`).join(", "));
  return [...new Set(uris)];
}

/** GitLab's answer to a registration, in its key order. */
export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  redirect_uris: string[];
  token_endpoint_auth_method: "none";
  grant_types: ["authorization_code"];
  require_pkce: true;
  client_name: string;
  scope: typeof mcpScope;
  dynamic: true;
}

/**
 * `POST /oauth/register` (RFC 7591), as GitLab's `Oauth::DynamicRegistrationsController`: anyone may register, so
 * the application is public (no secret to hand out), needs PKCE with S256, can only ever have the `mcp` scope, and is
 * named `[Unverified Dynamic Application] <client_name>` everywhere it is shown. At most
 * THROTTLE_OAUTH_DYNAMIC_REGISTRATION_PER_IP registrations per address and period, counted before the body is read.
 */
export async function registerDynamicClient(
  ctx: Ctx,
  clientAddress: string | null,
  readMetadata: () => Promise<DynamicClientMetadata>,
): Promise<RegisteredClient> {
  if (!env.OAUTH_DYNAMIC_CLIENT_REGISTRATION) throw new OAuthError("not_found", "Dynamic client registration is turned off on this instance.", 404);
  await (await getRateLimits()).consume("oauthDynamicRegistrationPerAddress", clientAddress);
  const metadata = await readMetadata();
  const [application] = await ctx.db
    .insert(oauthApplications)
    .values({
      uid: randomBytes(32).toString("hex"),
      name: unverifiedApplicationPrefix + metadata.clientName,
      // Public clients authenticate with nothing; the column holds the digest of a secret nobody ever sees.
      secretDigest: sha256Hex(randomBytes(32).toString("hex")),
      redirectUris: metadata.redirectUris,
      scopes: [mcpScope],
      confidential: false,
      registration: "dynamic",
      createdAt: ctx.now,
    })
    .returning();
  if (!application) throw new Error("insert into oauth_applications returned no row");
  return {
    client_id: application.uid,
    client_id_issued_at: Math.floor(application.createdAt.getTime() / 1000),
    redirect_uris: application.redirectUris,
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code"],
    require_pkce: true,
    client_name: application.name,
    scope: mcpScope,
    dynamic: true,
  };
}

/**
 * How long a self-registered client (dynamic registration or metadata document) may wait for its first
 * authorization before housekeeping removes it. GitLab documents no period; a day is ample for a client that is
 * connecting now (registration and the first authorization are one flow), and keeps floods from piling up.
 */
export const unauthorizedClientLifetimeHours = 24;
const removalBatchSize = 500;

/**
 * Deletes self-registered applications older than `unauthorizedClientLifetimeHours` that nobody ever authorized
 * (no grant, revoked or not) and no admin trusted, a batch at a time so it never holds the table long.
 */
export async function removeUnauthorizedSelfRegisteredClients(db: Database, now: Date): Promise<{ removed: number }> {
  const cutoff = new Date(now.getTime() - unauthorizedClientLifetimeHours * 60 * 60 * 1000);
  let removed = 0;
  for (;;) {
    const batch = db
      .select({ id: oauthApplications.id })
      .from(oauthApplications)
      .where(
        and(
          ne(oauthApplications.registration, "manual"),
          eq(oauthApplications.trusted, false),
          lt(oauthApplications.createdAt, cutoff),
          notExists(db.select({ one: sql`1` }).from(oauthGrants).where(eq(oauthGrants.applicationId, oauthApplications.id))),
        ),
      )
      .limit(removalBatchSize);
    const deleted = await db.delete(oauthApplications).where(sql`${oauthApplications.id} in (${batch})`).returning({ id: oauthApplications.id });
    removed += deleted.length;
    if (deleted.length < removalBatchSize) return { removed };
  }
}
