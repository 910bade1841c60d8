import { mcpMethodNotAllowed, serveMcp } from "@/lib/mcp/server";

/** GitLab's MCP server endpoint (Streamable HTTP): JSON-RPC messages are POSTed; nothing else is served here. */
export { serveMcp as POST, mcpMethodNotAllowed as GET, mcpMethodNotAllowed as DELETE, mcpMethodNotAllowed as PUT, mcpMethodNotAllowed as PATCH };
