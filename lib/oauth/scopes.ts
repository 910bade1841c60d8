import { knownScopes, type Scope } from "@/lib/api/scopes";

/** What each scope lets an application do, in the words the consent and registration pages show. */
export const scopeDescriptions: Record<Scope, { title: string; description: string }> = {
  api: {
    title: "Access the API on your behalf",
    description: "Grants complete read/write access to the API, including all groups and projects.",
  },
  read_api: {
    title: "Read the API on your behalf",
    description: "Grants read access to the API, including all groups and projects.",
  },
  read_user: {
    title: "Read your personal information",
    description:
      "Grants read-only access to your profile through the /user API endpoint, which includes username, public email, and full name. Also grants access to read-only API endpoints under /users.",
  },
  read_repository: {
    title: "Read your repositories",
    description: "Grants read-only access to repositories on private projects using Git-over-HTTP.",
  },
  write_repository: {
    title: "Read and write your repositories",
    description: "Grants read-write access to repositories on private projects using Git-over-HTTP.",
  },
  sudo: {
    title: "Perform API actions as any user",
    description: "Grants permission to perform API actions as any user in the system, when authenticated as an administrator.",
  },
  openid: {
    title: "Authenticate using OpenID Connect",
    description: "Grants permission to authenticate with this service using OpenID Connect, and read-only access to your profile.",
  },
  profile: {
    title: "Read your profile through OpenID Connect",
    description: "Grants read-only access to your profile data using OpenID Connect.",
  },
  email: {
    title: "Read your email address through OpenID Connect",
    description: "Grants read-only access to your primary email address using OpenID Connect.",
  },
  mcp: {
    title: "Use the MCP server on your behalf",
    description:
      "Grants permission to use this service's MCP server (Model Context Protocol) on your behalf, as AI tools and agents do. It does not grant access to the REST API.",
  },
};

export const applicationScopes: readonly Scope[] = knownScopes;

/** Parses a space-separated scope string (RFC 6749 §3.3); null when it is malformed. */
export function parseScopeString(value: string): string[] | null {
  if (/[^\x21\x23-\x5B\x5D-\x7E ]/.test(value)) return null;
  return [...new Set(value.split(" ").filter((scope) => scope !== ""))];
}

export function formatScopes(scopes: readonly string[]): string {
  return scopes.join(" ");
}
