/** Every scope a token can carry, GitLab's names. */
export const knownScopes = [
  "api",
  "read_api",
  "read_user",
  "read_repository",
  "write_repository",
  "sudo",
  "openid",
  "profile",
  "email",
  // Only the MCP endpoint accepts it (as GitLab's): no REST scope set below may ever list it.
  "mcp",
] as const;
export type Scope = (typeof knownScopes)[number];

export function isKnownScope(value: string): value is Scope {
  return (knownScopes as readonly string[]).includes(value);
}

/** What self-registered clients (dynamic registration, client ID metadata documents) may ask for, and get by default. */
export const mcpScope = "mcp" as const satisfies Scope;

/** Scopes an endpoint accepts; a token needs at least one of them. */
export const readUserScopes = ["read_user", "read_api", "api"] as const satisfies readonly Scope[];
export const readApiScopes = ["read_api", "api"] as const satisfies readonly Scope[];
export const writeApiScopes = ["api"] as const satisfies readonly Scope[];

/**
 * Scopes the MCP server (`/api/v4/mcp`) accepts. `mcp` lets a token use every tool and nothing else of the API;
 * `api` and `read_api` reach the tools their REST endpoints accept them for (`read_api`: the read-only ones).
 */
export const mcpServerScopes = ["mcp", "api", "read_api"] as const satisfies readonly Scope[];
