import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { sha256Hex } from "@/lib/crypto";
import type { Database } from "@/lib/db";
import { oauthApplications, type OAuthApplicationRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { outboundReasons, sendOutbound } from "@/lib/http/outbound";
import { getRateLimits } from "@/lib/rate-limits/rate-limits";
import { mcpScope } from "@/lib/api/scopes";
import { forgetTokenChecks } from "@/lib/token-checks/checks";
import { findApplicationByUid, selfRegisteredRedirectUriProblem, unverifiedApplicationPrefix } from "./applications";

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, the MCP authorization spec 2025-11-25):
 * a client whose client_id is an HTTPS URL is described by the JSON document at that URL, which we fetch.
 *
 * The URL is chosen by whoever sends an authorization request, before anyone signs in, so the fetch is held on a
 * short leash: 5 KB, 5 seconds, no redirects, and only to public addresses (`sendOutbound`'s rules; the local network
 * only with `OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES`).
 */
export const maxMetadataDocumentBytes = 5 * 1024;
export const metadataFetchTimeoutMs = 5000;
/** How long a document read is used, whatever its Cache-Control says: at least a minute, at most a day; else an hour. */
export const metadataCacheBounds = { minSeconds: 60, maxSeconds: 24 * 60 * 60, defaultSeconds: 60 * 60 };

/** A document that cannot be used; the authorize error page says why. */
export class MetadataDocumentError extends Error {}

/** Whether a client_id names a metadata document rather than a registered application. */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return clientId.startsWith("https://") || (env.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES && clientId.startsWith("http://"));
}

/** The draft's rules for the client_id URL itself (§3): https, a path, no fragment, credentials or dot segments. */
function checkedClientIdUrl(clientId: string): URL {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new MetadataDocumentError("The client_id is not a valid URL.");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && env.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES)) {
    throw new MetadataDocumentError("The client_id URL must use https.");
  }
  if (clientId.length > 2000) throw new MetadataDocumentError("The client_id URL is too long.");
  if (clientId.includes("#")) throw new MetadataDocumentError("The client_id URL must not contain a fragment.");
  if (url.username || url.password) throw new MetadataDocumentError("The client_id URL must not contain credentials.");
  if (url.pathname === "/" || url.pathname === "") throw new MetadataDocumentError("The client_id URL must have a path.");
  if (/\/\.{1,2}(\/|$)/.test(clientId.slice(url.origin.length).split("?")[0]!)) {
    throw new MetadataDocumentError("The client_id URL must not contain dot segments.");
  }
  // The URL parser normalises (case, default port, percent-encoding): a client_id must already be in that form, since
  // it is compared as a string everywhere (the document's own client_id, the token endpoint).
  if (url.href !== clientId) throw new MetadataDocumentError("The client_id URL is not in normalised form.");
  return url;
}

/** Seconds a response may be used, from its Cache-Control, within `metadataCacheBounds`. */
export function cacheSeconds(cacheControl: string | undefined): number {
  const { minSeconds, maxSeconds, defaultSeconds } = metadataCacheBounds;
  const directives = (cacheControl ?? "").toLowerCase().split(",").map((part) => part.trim());
  if (directives.some((directive) => directive === "no-store" || directive === "no-cache")) return minSeconds;
  const maxAge = directives.map((directive) => /^max-age=(\d+)$/.exec(directive)?.[1]).find((value) => value !== undefined);
  if (maxAge === undefined) return defaultSeconds;
  return Math.min(maxSeconds, Math.max(minSeconds, Number(maxAge)));
}

/** GET of the document: status 200, JSON, within the size and time limits, redirects refused. */
async function fetchDocument(url: URL): Promise<{ text: string; cacheControl: string | undefined }> {
  const result = await sendOutbound({
    url: url.href,
    method: "GET",
    headers: { Accept: "application/json" },
    timeoutMs: metadataFetchTimeoutMs,
    maxResponseBytes: maxMetadataDocumentBytes,
    allowLocalNetwork: env.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES,
  });
  switch (result.kind) {
    case "refused":
      throw new MetadataDocumentError("The client_id URL's host resolves to an address this server does not fetch from.");
    case "failed":
      if (result.reason === outboundReasons.timedOut(metadataFetchTimeoutMs)) {
        throw new MetadataDocumentError(`The client_id URL did not answer within ${metadataFetchTimeoutMs / 1000} seconds.`);
      }
      if (result.reason === outboundReasons.unresolvable) throw new MetadataDocumentError("The client_id URL's host could not be resolved.");
      throw new MetadataDocumentError("The client_id URL could not be fetched.");
  }
  if (result.status >= 300 && result.status < 400) throw new MetadataDocumentError("The client_id URL answered with a redirect, which is not followed.");
  if (result.status !== 200) throw new MetadataDocumentError(`The client_id URL answered with status ${result.status}.`);
  if (result.truncated) throw new MetadataDocumentError(`The metadata document is larger than ${maxMetadataDocumentBytes} bytes.`);
  return { text: result.body, cacheControl: result.headers["cache-control"] };
}

const metadataDocumentSchema = z.looseObject({
  client_id: z.string(),
  client_name: z.string().optional(),
  redirect_uris: z.array(z.string()).min(1).max(20),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
});

export interface ClientMetadata {
  clientName: string | null;
  redirectUris: string[];
}

/** The draft's rules for the document (§4): it names itself, has redirect URIs, and holds no shared secret. */
export function readMetadataDocument(clientId: string, text: string): ClientMetadata {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new MetadataDocumentError("The metadata document is not valid JSON.");
  }
  const parsed = metadataDocumentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join(".") : "document";
    throw new MetadataDocumentError(`The metadata document's ${field} is invalid.`);
  }
  const document = parsed.data;
  if (document.client_id !== clientId) throw new MetadataDocumentError("The metadata document's client_id is not the URL it was fetched from.");
  if ("client_secret" in document || "client_secret_expires_at" in document) {
    throw new MetadataDocumentError("The metadata document must not contain a client secret.");
  }
  if (document.token_endpoint_auth_method !== undefined && document.token_endpoint_auth_method !== "none") {
    throw new MetadataDocumentError("The metadata document's token_endpoint_auth_method must be none: only public clients are supported.");
  }
  if (document.grant_types && !document.grant_types.includes("authorization_code")) {
    throw new MetadataDocumentError("The metadata document's grant_types must include authorization_code.");
  }
  if (document.response_types && !document.response_types.includes("code")) {
    throw new MetadataDocumentError("The metadata document's response_types must include code.");
  }
  for (const uri of document.redirect_uris) {
    const problem = selfRegisteredRedirectUriProblem(uri);
    if (problem) throw new MetadataDocumentError(`The metadata document's redirect URI ${JSON.stringify(uri.slice(0, 200))} ${problem}`);
  }
  const clientName = document.client_name?.trim() || null;
  if (clientName && clientName.length >= 200) throw new MetadataDocumentError("The metadata document's client_name is too long.");
  if (/\u0000/.test(text)) throw new MetadataDocumentError("The metadata document must not contain NUL characters.");
  return { clientName, redirectUris: [...new Set(document.redirect_uris)] };
}

/**
 * The application a metadata-document client_id stands for: the stored one while its reading is fresh, else the
 * document is fetched (again) and the row written.
 *
 * Such a client is stored as an ordinary `oauth_applications` row whose uid is the URL, marked `metadata_document`:
 * grants, codes, tokens and consents all point at an application row, the token checks cache clients by client_id,
 * and admins list, trust and delete applications. A row per URL makes these clients first-class in all of it (the
 * token endpoint, revocation, introspection, the admin pages) without a second kind of client, and the row doubles
 * as the HTTP cache of the document (`metadata_expires_at`). Rows nobody authorized are removed by housekeeping.
 */
export async function metadataDocumentClient(db: Database, clientId: string, now: Date, clientAddress: string | null): Promise<OAuthApplicationRow> {
  const url = checkedClientIdUrl(clientId);
  const known = await findApplicationByUid({ db }, clientId);
  if (known && (known.registration !== "metadata_document" || (known.metadataExpiresAt && known.metadataExpiresAt > now))) return known;
  // A client_id we have not seen is a registration like `POST /oauth/register`'s, and counts against the same limit
  // per address: otherwise anyone with a web server could store clients as fast as they can name URLs.
  if (!known) await (await getRateLimits()).consume("oauthDynamicRegistrationPerAddress", clientAddress);
  const { text, cacheControl } = await fetchDocument(url);
  const metadata = readMetadataDocument(clientId, text);
  const values = {
    name: unverifiedApplicationPrefix + (metadata.clientName ?? url.host),
    redirectUris: metadata.redirectUris,
    metadataFetchedAt: now,
    metadataExpiresAt: new Date(now.getTime() + cacheSeconds(cacheControl) * 1000),
  };
  const [application] = await db
    .insert(oauthApplications)
    .values({
      ...values,
      uid: clientId,
      // Public clients authenticate with nothing; the column holds the digest of a secret nobody ever sees.
      secretDigest: sha256Hex(randomBytes(32).toString("hex")),
      scopes: [mcpScope],
      confidential: false,
      registration: "metadata_document",
    })
    .onConflictDoUpdate({ target: oauthApplications.uid, set: values })
    .returning();
  if (!application) throw new Error("upsert into oauth_applications returned no row");
  forgetTokenChecks(db, `application:${application.id}`);
  return application;
}
