import "server-only";
import type { Actor } from "@/lib/context";
import { env } from "@/lib/env";
import { issuer } from "@/lib/oauth/id-token";

/**
 * The MCP server as an OAuth protected resource (RFC 9728): where it is, where its metadata is, and the challenge
 * that points clients there, so an MCP client that meets a 401 can find our authorization server and sign in.
 */

export const mcpPath = "/api/v4/mcp";

/** The MCP server's resource identifier: its URL. */
export function mcpResourceUrl(): string {
  return `${env.EXTERNAL_URL}${mcpPath}`;
}

/**
 * Where its metadata is: the well-known prefix put between the host and the path (RFC 9728 §3.1), after
 * EXTERNAL_URL as GitLab does, so a service behind a path prefix keeps it.
 */
export function mcpResourceMetadataUrl(): string {
  return `${env.EXTERNAL_URL}/.well-known/oauth-protected-resource${mcpPath}`;
}

/** The scopes clients should ask for: `mcp` alone, as GitLab advertises (`api` and `read_api` tokens work too). */
const advertisedScopes = ["mcp"];

/**
 * The protected resource metadata for `resource`: the MCP server (`/.well-known/oauth-protected-resource/api/v4/mcp`),
 * or the service as a whole (`/.well-known/oauth-protected-resource`), both signed in to through our own
 * authorization server.
 */
export function protectedResourceMetadata(resource: string) {
  return {
    resource,
    authorization_servers: [issuer()],
    scopes_supported: advertisedScopes,
    bearer_methods_supported: ["header"],
    resource_name: "GitLab-compatible MCP server",
  };
}

/**
 * A `WWW-Authenticate` Bearer challenge (RFC 6750 §3) naming the metadata (RFC 9728 §5.1) and the scope to ask for.
 * `error`: why the token presented was refused; none when no token came.
 */
export function bearerChallenge(error?: { error: "invalid_token" | "insufficient_scope"; description: string }): string {
  const parts = [`realm="GitLab"`];
  if (error) parts.push(`error="${error.error}"`, `error_description="${error.description.replaceAll('"', "'")}"`);
  parts.push(`scope="${advertisedScopes.join(" ")}"`, `resource_metadata="${mcpResourceMetadataUrl()}"`);
  return `Bearer ${parts.join(", ")}`;
}

/**
 * Whether the token behind `actor` may be used at `resource` (RFC 8707: a token bound to another resource must not be
 * accepted here). This is the one place that decides it: an OAuth token bound to a resource is accepted only at that
 * resource; one that names none, a personal access token (no `oauthTokenResource` at all) and a session are accepted.
 */
export function isTokenAcceptableForResource(actor: Actor, resource: string): boolean {
  if (actor.kind !== "user") return false;
  return actor.oauthTokenResource == null || actor.oauthTokenResource === resource;
}
