import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/context";
import type { UserRow } from "@/lib/db/schema";
import { routeDeclarations as declarations } from "@/lib/testing/route-declarations";
import { apiTools, findTool, mcpTools, toolAvailableTo, toolResultOf } from "./tools";

function tokenActor(...scopes: string[]): Actor {
  return { kind: "user", user: { id: 1 } as UserRow, scopes: new Set(scopes) };
}

describe("the MCP server's tools", () => {
  it("are GitLab's tools, with GitLab's names, and this service's own", () => {
    expect(mcpTools.map((tool) => tool.name)).toEqual([
      "get_mcp_server_version",
      "get_issue",
      "create_issue",
      "gitlab_search",
      "get_workitem_notes",
      "create_workitem_note",
      "get_issue_notes",
      "create_issue_note",
      "list_project_events",
      "list_alerts",
      "get_alert",
      "update_alert_status",
      "list_projects",
      "get_project",
    ]);
    expect(findTool("get_issue")?.name).toBe("get_issue");
    expect(findTool("delete_everything")).toBeUndefined();
  });

  it("each serve the very endpoint their route file serves, so parameters, verbs and answers are the REST API's", async () => {
    const declared = await declarations();
    for (const tool of apiTools) {
      const { method, route, endpoint } = tool.target;
      const declaration = declared.find((candidate) => candidate.method === method && candidate.route === route);
      expect(declaration, `${tool.name}: ${method} ${route}`).toBeDefined();
      expect(declaration!.endpoint, `${tool.name}: ${method} ${route}`).toBe(endpoint);
      // Every parameter a tool takes is one its endpoint declares.
      const takes = Object.keys({ ...declaration!.path, ...declaration!.params });
      expect(tool.params.filter((name) => !takes.includes(name)), tool.name).toEqual([]);
    }
  });

  it("describe their input with JSON Schema written from the endpoint's declarations", () => {
    for (const tool of mcpTools) {
      const schema = tool.inputSchema();
      expect(schema.type, tool.name).toBe("object");
      expect(schema.additionalProperties, tool.name).toBe(false);
      for (const [name, property] of Object.entries(schema.properties)) {
        expect(typeof property.description, `${tool.name}.${name}`).toBe("string");
      }
    }
    expect(findTool("get_mcp_server_version")!.inputSchema()).toEqual({ type: "object", properties: {}, required: [], additionalProperties: false });
    const getIssue = findTool("get_issue")!.inputSchema();
    expect(getIssue.required).toEqual(["id", "issue_iid"]);
    expect(getIssue.properties.issue_iid).toEqual({
      description: "Internal ID of the issue within its project (the number shown as #N).",
      anyOf: [
        { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        { type: "string", pattern: "^-?\\d+$" },
      ],
    });
    const createIssue = findTool("create_issue")!.inputSchema();
    expect(Object.keys(createIssue.properties)).toEqual(["id", "title", "description", "assignee_ids", "milestone_id", "labels", "confidential"]);
    expect(createIssue.required).toEqual(["id", "title"]);
    expect(createIssue.properties.title).toEqual({ description: "Title of the issue.", type: "string" });
    expect(createIssue.properties.confidential).toMatchObject({ type: ["boolean", "string"] });
    const search = findTool("gitlab_search")!.inputSchema();
    expect(Object.keys(search.properties)).toEqual([
      "scope",
      "search",
      "group_id",
      "project_id",
      "state",
      "confidential",
      "fields",
      "order_by",
      "sort",
      "page",
      "per_page",
    ]);
    expect(search.required).toEqual(["scope", "search"]);
    expect(search.properties.scope).toMatchObject({ type: "string", enum: ["projects", "issues"] });
    const events = findTool("list_project_events")!.inputSchema();
    expect(events.properties.action).toMatchObject({ type: "string", enum: expect.arrayContaining(["created", "closed", "commented", "pushed"]) });
    expect(events.properties.before).toMatchObject({ type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" });
    expect(findTool("update_alert_status")!.inputSchema().properties.status).toMatchObject({
      type: "string",
      enum: ["triggered", "acknowledged", "resolved", "ignored"],
    });
  });

  it("say which only read", () => {
    const readOnly = mcpTools.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name);
    expect(readOnly).toEqual([
      "get_mcp_server_version",
      "get_issue",
      "gitlab_search",
      "get_workitem_notes",
      "get_issue_notes",
      "list_project_events",
      "list_alerts",
      "get_alert",
      "list_projects",
      "get_project",
    ]);
    expect(findTool("create_issue")!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
  });

  it("are open to a token as its scopes are: mcp and api every tool, read_api the reading ones", () => {
    const available = (actor: Actor) => mcpTools.filter((tool) => toolAvailableTo(actor, tool)).map((tool) => tool.name);
    const every = mcpTools.map((tool) => tool.name);
    expect(available(tokenActor("mcp"))).toEqual(every);
    expect(available(tokenActor("api"))).toEqual(every);
    expect(available(tokenActor("read_api"))).toEqual(mcpTools.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name));
  });
});

describe("a REST answer as a tool's result", () => {
  const headers = { "Content-Type": "application/json" };

  it("is the body as text, and an object as structured content", () => {
    const body = JSON.stringify({ id: 1, title: "Broken" });
    expect(toolResultOf({ status: 200, headers, body })).toEqual({
      content: [{ type: "text", text: body }],
      structuredContent: { id: 1, title: "Broken" },
      isError: false,
    });
  });

  it("gives a list as items with a count and whether more pages follow", () => {
    const body = JSON.stringify([{ id: 1 }, { id: 2 }]);
    expect(toolResultOf({ status: 200, headers: { ...headers, "X-Next-Page": "2" }, body }).structuredContent).toEqual({
      items: [{ id: 1 }, { id: 2 }],
      metadata: { count: 2, has_more: true },
    });
    expect(toolResultOf({ status: 200, headers: { ...headers, "X-Next-Page": "" }, body }).structuredContent).toEqual({
      items: [{ id: 1 }, { id: 2 }],
      metadata: { count: 2, has_more: false },
    });
    expect(toolResultOf({ status: 200, headers: { Link: '<http://x/?id_before=4>; rel="next"' }, body }).structuredContent).toMatchObject({
      metadata: { has_more: true },
    });
  });

  it("is an error result with GitLab's message for a refusal", () => {
    expect(toolResultOf({ status: 404, headers, body: JSON.stringify({ message: "404 Project Not Found" }) })).toEqual({
      content: [{ type: "text", text: "404 Project Not Found" }],
      structuredContent: { error: { message: "404 Project Not Found" } },
      isError: true,
    });
    expect(toolResultOf({ status: 400, headers, body: JSON.stringify({ error: "title is missing" }) }).content).toEqual([{ type: "text", text: "title is missing" }]);
    const insufficient = { error: "insufficient_scope", error_description: "The request requires higher privileges than provided by the access token.", scope: "api" };
    expect(toolResultOf({ status: 403, headers, body: JSON.stringify(insufficient) })).toEqual({
      content: [{ type: "text", text: "insufficient_scope: The request requires higher privileges than provided by the access token." }],
      structuredContent: { error: insufficient },
      isError: true,
    });
    expect(toolResultOf({ status: 400, headers, body: JSON.stringify({ message: { title: ["is too long"] } }) }).content[0]!.text).toBe('{"title":["is too long"]}');
    expect(toolResultOf({ status: 502, headers: {}, body: "upstream" })).toEqual({
      content: [{ type: "text", text: "HTTP 502" }],
      structuredContent: { error: { body: "upstream" } },
      isError: true,
    });
  });
});
