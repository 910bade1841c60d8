import "server-only";
import { randomUUID } from "node:crypto";
import { getDatabase, type Database } from "@/lib/db";
import { logger } from "@/lib/log";
import { observeRequest } from "@/lib/metrics";
import { invalidRequest, OAuthError, renderOAuthError } from "./errors";

const maxOAuthBodyBytes = 64 * 1024;

/** Browser-based clients call these endpoints cross-origin; they carry no cookies, so any origin may. */
export const corsHeaders: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type",
  "Access-Control-Max-Age": "86400",
};

export function corsPreflight(): Response {
  return new Response(null, { status: 204, headers: corsHeaders });
}

export type OAuthParams = Record<string, string | string[]>;

/** Form-encoded parameters (RFC 6749 §3.2), or a JSON object as GitLab also accepts; repeated names become arrays. */
export async function readOAuthParams(request: Request): Promise<OAuthParams> {
  if (Number(request.headers.get("content-length") ?? "0") > maxOAuthBodyBytes) throw invalidRequest("The request body is too large.");
  const text = await request.text();
  if (text.length > maxOAuthBodyBytes) throw invalidRequest("The request body is too large.");
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (contentType === "application/json") {
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
    return params;
  }
  return collectParams(new URLSearchParams(text));
}

export function collectParams(search: URLSearchParams): OAuthParams {
  const params: OAuthParams = {};
  for (const [name, value] of search) {
    const existing = params[name];
    params[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
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

/**
 * Wraps an OAuth endpoint: JSON answers that are never cached, CORS for browser clients, OAuth error bodies from
 * thrown `OAuthError`s, and a log line that names the route but never a token or secret.
 */
export function oauthEndpoint(route: string, handle: (call: OAuthCall) => Promise<unknown>) {
  return async (request: Request): Promise<Response> => {
    const startedAt = performance.now();
    let response: Response;
    try {
      const body = await handle({ db: await getDatabase(), request, url: new URL(request.url), now: new Date() });
      response = new Response(JSON.stringify(body), {
        headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", Pragma: "no-cache", ...corsHeaders },
      });
    } catch (error) {
      if (error instanceof OAuthError) {
        response = renderOAuthError(error, corsHeaders);
      } else {
        const requestId = randomUUID();
        logger.error({ err: error, route, requestId }, "unhandled error in OAuth endpoint");
        response = renderOAuthError(
          new OAuthError("server_error", "The authorization server encountered an unexpected condition which prevented it from fulfilling the request.", 500),
          corsHeaders,
        );
      }
    }
    observeRequest(request.method, route, response.status, startedAt);
    logger.info({ method: request.method, route, status: response.status, durationMs: Math.round(performance.now() - startedAt) }, "oauth request");
    return response;
  };
}
