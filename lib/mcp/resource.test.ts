import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/context";
import type { UserRow } from "@/lib/db/schema";
import { isTokenAcceptableForResource } from "./resource";

const mcp = "https://gitlab.example/api/v4/mcp";
const user = { id: 1 } as UserRow;
const tokenFor = (oauthTokenResource?: string | null): Actor => ({ kind: "user", user, scopes: new Set(["mcp"]), oauthTokenResource });

describe("which tokens the MCP server accepts (RFC 8707)", () => {
  it("accepts a token bound to it, one bound to no resource, and a personal access token", () => {
    expect(isTokenAcceptableForResource(tokenFor(mcp), mcp)).toBe(true);
    expect(isTokenAcceptableForResource(tokenFor(null), mcp)).toBe(true);
    expect(isTokenAcceptableForResource(tokenFor(undefined), mcp)).toBe(true);
  });

  it("refuses a token bound to another resource, even one that only differs by its path", () => {
    expect(isTokenAcceptableForResource(tokenFor("https://elsewhere.example/api"), mcp)).toBe(false);
    expect(isTokenAcceptableForResource(tokenFor("https://gitlab.example/api/v4"), mcp)).toBe(false);
  });

  it("refuses a caller that is not a user", () => {
    expect(isTokenAcceptableForResource({ kind: "anonymous" } as Actor, mcp)).toBe(false);
  });
});
