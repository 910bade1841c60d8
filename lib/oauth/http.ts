import "server-only";
import { randomUUID } from "node:crypto";
import type { Ctx } from "@/lib/context";
import { getDatabase, type Database } from "@/lib/db";
import { logger } from "@/lib/log";
import { observeRequest } from "@/lib/metrics";
import type { Answer } from "@/lib/http/answer";
import { readBodyText, SenderHungUp } from "@/lib/http/body";
import { directlyDispatchable } from "@/lib/http/direct-dispatch";
import { RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { invalidRequest, OAuthError, renderOAuthError } from "./errors";

const maxOAuthBodyBytes = 64 * 1024;

/** Browser-based clients call these endpoints cross-origin; they carry no cookies, so any origin may. */
export const corsHeaders: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type",
  "Access-Control-Max-Age": "86400",
};

/** The answer to a CORS preflight of an OAuth endpoint. */
export const corsPreflight = directlyDispatchable((): Answer => ({ status: 204, headers: { ...corsHeaders }, body: null }));

/**
 * A public document of the provider (discovery, the signing keys): JSON any origin may read, cached as
 * `cacheControl` says.
 */
export function publicOAuthDocument(cacheControl: string, document: (db: Database) => unknown) {
  return directlyDispatchable(
    async (): Promise<Answer> => ({
      status: 200,
      headers: { "Content-Type": "application/json", "Cache-Control": cacheControl, ...corsHeaders },
      body: JSON.stringify(await document(await getDatabase())),
    }),
  );
}

export type OAuthParams = Record<string, string | string[]>;

function bodyTooLarge(): OAuthError {
  return invalidRequest("The request body is too large.");
}

/**
 * Form-encoded parameters (RFC 6749 §3.2), or a JSON object as GitLab also accepts; repeated names become arrays.
 * The body is read under a size limit without ever holding more of it (lib/http/body.ts).
 */
export async function readOAuthParams(request: Request): Promise<OAuthParams> {
  const text = await readBodyText(request, maxOAuthBodyBytes, bodyTooLarge);
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (contentType !== "application/json") return refuseUnstorable(collectParams(new URLSearchParams(text)));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text || "{}");
  } catch {
    throw invalidRequest("The request body is not valid JSON.");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw invalidRequest("The request body must be a JSON object.");
  const params: OAuthParams = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value === "string") params[name] = value;
    else if (typeof value === "number" || typeof value === "boolean") params[name] = String(value);
    else throw invalidRequest(`Parameter ${name} must be a string.`);
  }
  return refuseUnstorable(params);
}

/** A form posted to one of our OAuth pages (the consent decision), read as `readOAuthParams` reads bodies. */
export async function readOAuthForm(request: Request): Promise<OAuthParams> {
  return collectParams(new URLSearchParams(await readBodyText(request, maxOAuthBodyBytes, bodyTooLarge)));
}

/** Query or form parameters; repeated names become arrays. */
export function collectParams(search: URLSearchParams): OAuthParams {
  const params: OAuthParams = {};
  for (const [name, value] of search) {
    const existing = params[name];
    params[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return params;
}

/**
 * What is wrong with parameters no OAuth step can use: PostgreSQL text cannot hold a NUL character, so one in a
 * parameter (or its name) is a malformed request, never something to look up. Null when there is nothing wrong.
 */
export function unstorableParameter(params: Record<string, string | string[] | undefined>): string | null {
  for (const [name, value] of Object.entries(params)) {
    const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
    if (name.includes("\u0000") || values.some((item) => item.includes("\u0000"))) {
      return `Parameter ${name.replaceAll("\u0000", "\\0")} must not contain NUL characters.`;
    }
  }
  return null;
}

/** `invalid_request` for parameters `unstorableParameter` finds fault with. */
export function refuseUnstorable<Params extends Record<string, string | string[] | undefined>>(params: Params): Params {
  const problem = unstorableParameter(params);
  if (problem) throw invalidRequest(problem);
  return params;
}

/** Single-valued parameters, or `invalid_request` naming the one given twice (RFC 6749 §3.1). */
export function singleValued(params: OAuthParams): Record<string, string> {
  const single: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value)) throw invalidRequest(`Parameter ${name} was given more than once.`);
    single[name] = value;
  }
  return single;
}

export function bearerToken(request: Request, url: URL): string | null {
  return request.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1] ?? url.searchParams.get("access_token");
}

export interface OAuthCall {
  db: Database;
  request: Request;
  url: URL;
  now: Date;
}

/** The context of an OAuth endpoint's verb that acts for nobody (the client is whoever it authenticates as, if anyone). */
export function anonymousContextFor(call: OAuthCall): Ctx {
  return { db: call.db, actor: { kind: "anonymous" }, now: call.now };
}

/**
 * Wraps an OAuth endpoint: JSON answers (status 200 unless `options.status` says otherwise) that are never cached, CORS for browser clients, OAuth error bodies from
 * thrown `OAuthError`s, and a log line that names the route but never a token or secret.
 */
export function oauthEndpoint(route: string, handle: (call: OAuthCall) => Promise<unknown>, options: { status?: number } = {}) {
  return directlyDispatchable(async (request: Request): Promise<Answer> => {
    const startedAt = performance.now();
    let answer: Answer;
    try {
      const body = await handle({ db: await getDatabase(), request, url: new URL(request.url), now: new Date() });
      answer = {
        status: options.status ?? 200,
        headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", Pragma: "no-cache", ...corsHeaders },
        body: JSON.stringify(body),
      };
    } catch (error) {
      if (error instanceof OAuthError) {
        answer = renderOAuthError(error, corsHeaders);
      } else if (error instanceof RateLimitExceeded) {
        // RFC 6749 names no token-endpoint error for this; `temporarily_unavailable` is its word for an overloaded server.
        const description = `Too many requests. Retry after ${error.retryAfterSeconds()} seconds.`;
        answer = renderOAuthError(new OAuthError("temporarily_unavailable", description, 429), { ...corsHeaders, ...error.headers() });
      } else if (error instanceof SenderHungUp) {
        logger.info({ route }, error.message);
        answer = { status: error.status, headers: {}, body: null };
      } else {
        const requestId = randomUUID();
        logger.error({ err: error, route, requestId }, "unhandled error in OAuth endpoint");
        answer = renderOAuthError(
          new OAuthError("server_error", "The authorization server encountered an unexpected condition which prevented it from fulfilling the request.", 500),
          corsHeaders,
        );
      }
    }
    observeRequest(request.method, route, answer.status, startedAt);
    logger.info({ method: request.method, route, status: answer.status, durationMs: Math.round(performance.now() - startedAt) }, "oauth request");
    return answer;
  });
}
