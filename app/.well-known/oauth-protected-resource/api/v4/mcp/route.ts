import { mcpResourceUrl, protectedResourceMetadata } from "@/lib/mcp/resource";
import { corsPreflight, publicOAuthDocument } from "@/lib/oauth/http";

/** RFC 9728 metadata of the MCP server, where the `WWW-Authenticate` challenge of `/api/v4/mcp` points. */
export const GET = publicOAuthDocument("max-age=3600, public", () => protectedResourceMetadata(mcpResourceUrl()));

export const OPTIONS = corsPreflight;
