import { expect, test } from "@playwright/test";
import { discoverOAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/client/auth.js";
import { addMember, asToken, createProject, createToken, createUser, uniqueName } from "../support/api";
import { bearer, createIntegration, postAlert, receiverPath } from "../support/alerts";
import { passwordToken } from "../support/oauth";
import { answered, callTool, connectClient, mcpPath, postMessage, restGet } from "./support";

const gitlabTools = ["get_mcp_server_version", "get_issue", "create_issue", "gitlab_search", "get_workitem_notes", "create_workitem_note"];
const ourTools = [
  "get_issue_notes",
  "create_issue_note",
  "list_project_events",
  "list_alerts",
  "get_alert",
  "update_alert_status",
  "list_projects",
  "get_project",
];
const readOnlyTools = ["get_mcp_server_version", "get_issue", "gitlab_search", "get_workitem_notes", "get_issue_notes", "list_project_events", "list_alerts", "get_alert", "list_projects", "get_project"];

test.describe("the MCP server through the MCP SDK's client", () => {
  test("initializes, lists its tools with their schemas, and calls every one as the REST API answers", async ({ request, baseURL }) => {
    test.setTimeout(120_000);
    const owner = await createUser(request);
    const mcpToken = (await createToken(request, owner.id, ["mcp"])).token;
    const project = await createProject(request, owner.token, { name: uniqueName("Orbit") });
    const integration = await createIntegration(request, owner.token, project.id);
    const received = await postAlert(request, receiverPath(integration), { title: "Disk almost full", severity: "high" }, bearer(integration.token));
    expect(received.status(), await received.text()).toBe(200);
    const alertIid = ((await received.json()) as { iid: number }[])[0]!.iid;

    const client = await connectClient(baseURL!, mcpToken);
    expect(client.getServerVersion()).toEqual({ name: "GitLab-compatible MCP Server", title: "GitLab-compatible MCP Server", version: "16.10.0" });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    expect(client.getInstructions()).toContain("GitLab REST API");

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...gitlabTools, ...ourTools]);
    expect(tools.filter((tool) => tool.annotations?.readOnlyHint).map((tool) => tool.name)).toEqual(readOnlyTools);
    const getIssueTool = tools.find((tool) => tool.name === "get_issue")!;
    expect(getIssueTool).toEqual({
      name: "get_issue",
      title: "Get an issue",
      description: "Get a single issue of a project, with its title, description, state, labels, assignees and links.",
      inputSchema: {
        type: "object",
        properties: {
          id: {
            description: "ID or URL-encoded path of the project, such as 42 or my-group/my-project.",
            anyOf: [{ type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }, { type: "string" }],
          },
          issue_iid: {
            description: "Internal ID of the issue within its project (the number shown as #N).",
            anyOf: [{ type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }, { type: "string", pattern: "^-?\\d+$" }],
          },
        },
        required: ["id", "issue_iid"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
    const createIssueSchema = tools.find((tool) => tool.name === "create_issue")!.inputSchema;
    expect(Object.keys(createIssueSchema.properties!)).toEqual(["id", "title", "description", "assignee_ids", "milestone_id", "labels", "confidential"]);
    expect(createIssueSchema.required).toEqual(["id", "title"]);
    expect(tools.find((tool) => tool.name === "gitlab_search")!.inputSchema.required).toEqual(["scope", "search"]);

    // get_mcp_server_version
    expect(await callTool(client, "get_mcp_server_version")).toEqual({
      content: [{ type: "text", text: "16.10.0" }],
      structuredContent: { version: "16.10.0", revision: expect.any(String) },
      isError: false,
    });

    // create_issue: the issue exists, and the tool answered exactly what the REST API shows of it.
    const marker = uniqueName("slow");
    const createdResult = await callTool(client, "create_issue", {
      id: project.id,
      title: `Search is ${marker}`,
      description: "Takes *seconds*.",
      labels: ["performance", "search"],
      confidential: false,
    });
    const created = answered(createdResult) as { iid: number; title: string; labels: string[]; state: string };
    expect(created).toMatchObject({ title: `Search is ${marker}`, labels: ["performance", "search"], state: "opened" });
    expect(createdResult.structuredContent).toEqual(created);
    expect(created).toEqual(await restGet(request, owner.token, `/projects/${project.id}/issues/${created.iid}`));

    // get_issue, by path as well as by id.
    const byPath = await callTool(client, "get_issue", { id: project.path_with_namespace, issue_iid: String(created.iid) });
    expect(answered(byPath)).toEqual(await restGet(request, owner.token, `/projects/${project.id}/issues/${created.iid}`));
    expect(answered(await callTool(client, "get_issue", { id: project.id, issue_iid: created.iid }))).toEqual(answered(byPath));

    // create_issue_note, then get_issue_notes.
    const note = answered(await callTool(client, "create_issue_note", { id: project.id, issue_iid: created.iid, body: "Profiled: the index is missing." })) as {
      id: number;
      body: string;
      author: { username: string };
    };
    expect(note).toMatchObject({ body: "Profiled: the index is missing.", author: { username: owner.username }, internal: false });
    const notesPath = `/projects/${project.id}/issues/${created.iid}/notes`;
    const notesResult = await callTool(client, "get_issue_notes", { id: project.id, issue_iid: created.iid, sort: "asc", per_page: 5 });
    const restNotes = (await restGet(request, owner.token, `${notesPath}?sort=asc&per_page=5`)) as { id: number }[];
    expect(answered(notesResult)).toEqual(restNotes);
    expect(restNotes.map((each) => each.id)).toContain(note.id);
    expect(notesResult.structuredContent).toEqual({ items: restNotes, metadata: { count: restNotes.length, has_more: false } });

    // GitLab's work item tools: the issue named by its URL, its comments a cursor page at a time.
    const webUrl = (created as unknown as { web_url: string }).web_url;
    const workItemNote = await callTool(client, "create_workitem_note", { url: webUrl, body: "Reproduced on *main*." });
    const restAfter = (await restGet(request, owner.token, `${notesPath}?sort=asc`)) as { id: number; created_at: string; updated_at: string }[];
    const addedByUrl = restAfter.at(-1)!;
    const asNode = (rest: { id: number; created_at: string; updated_at: string }, body: string) => ({
      id: `gid://gitlab/Note/${rest.id}`,
      body,
      internal: false,
      system: false,
      createdAt: rest.created_at,
      updatedAt: rest.updated_at,
      author: { id: `gid://gitlab/User/${owner.id}`, username: owner.username, name: `User ${owner.username}`, avatarUrl: `${baseURL}/-/avatars/${owner.id}`, webUrl: `${baseURL}/${owner.username}` },
    });
    expect(workItemNote.structuredContent).toEqual({ note: asNode(addedByUrl, "Reproduced on *main*."), errors: [] });
    const firstNotes = await callTool(client, "get_workitem_notes", { project_id: project.path_with_namespace, work_item_iid: created.iid, first: 1 });
    const firstPage = firstNotes.structuredContent as { nodes: unknown[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
    expect(firstPage.nodes).toEqual([asNode(restAfter[0]!, "Profiled: the index is missing.")]);
    expect(firstPage.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(JSON.parse(firstNotes.content[0]!.text)).toEqual(firstPage);
    const nextNotes = await callTool(client, "get_workitem_notes", { project_id: project.id, work_item_iid: created.iid, after: firstPage.pageInfo.endCursor });
    expect(nextNotes.structuredContent).toMatchObject({ nodes: [asNode(addedByUrl, "Reproduced on *main*.")], pageInfo: { hasNextPage: false, hasPreviousPage: true } });

    // list_project_events, with the Events API's filters.
    const commented = answered(await callTool(client, "list_project_events", { id: project.id, action: "commented", target_type: "note" })) as {
      action_name: string;
      note: { id: number };
    }[];
    expect(commented).toEqual(await restGet(request, owner.token, `/projects/${project.id}/events?action=commented&target_type=note`));
    expect(commented.map((event) => event.note.id)).toEqual([addedByUrl.id, note.id]);
    const oldestFirst = answered(await callTool(client, "list_project_events", { id: project.id, sort: "asc", per_page: 2, after: "2000-01-01" }));
    expect(oldestFirst).toEqual(await restGet(request, owner.token, `/projects/${project.id}/events?sort=asc&per_page=2&after=2000-01-01`));
    expect(answered(await callTool(client, "list_project_events", { id: project.id, before: "2000-01-01" }))).toEqual([]);

    // list_alerts with a status filter, get_alert, update_alert_status.
    const triggered = answered(await callTool(client, "list_alerts", { id: project.id, status: ["triggered"] })) as { iid: number; status: string }[];
    expect(triggered).toEqual(await restGet(request, owner.token, `/projects/${project.id}/alert_management/alerts?status=triggered`));
    expect(triggered.map((alert) => [alert.iid, alert.status])).toEqual([[alertIid, "triggered"]]);
    expect(answered(await callTool(client, "list_alerts", { id: project.id, status: "resolved,ignored" }))).toEqual([]);
    const alertPath = `/projects/${project.id}/alert_management/alerts/${alertIid}`;
    expect(answered(await callTool(client, "get_alert", { id: project.id, alert_iid: alertIid }))).toEqual(await restGet(request, owner.token, alertPath));
    const acknowledged = answered(await callTool(client, "update_alert_status", { id: project.id, alert_iid: alertIid, status: "acknowledged" }));
    expect(acknowledged).toMatchObject({ iid: alertIid, status: "acknowledged" });
    expect(await restGet(request, owner.token, alertPath)).toEqual(acknowledged);

    // list_projects, get_project.
    const mine = answered(await callTool(client, "list_projects", { membership: true, order_by: "id", sort: "asc" }));
    expect(mine).toEqual(await restGet(request, owner.token, "/projects?membership=true&order_by=id&sort=asc"));
    expect((mine as { id: number }[]).map((each) => each.id)).toEqual([project.id]);
    expect(answered(await callTool(client, "get_project", { id: project.path_with_namespace }))).toEqual(await restGet(request, owner.token, `/projects/${project.id}`));

    // gitlab_search: projects and issues across the instance, issues in a project.
    const projectHits = answered(await callTool(client, "gitlab_search", { scope: "projects", search: project.path }));
    expect(projectHits).toEqual(await restGet(request, owner.token, `/projects?search=${project.path}&simple=true`));
    expect((projectHits as { id: number }[]).map((each) => each.id)).toEqual([project.id]);
    const issueHits = answered(await callTool(client, "gitlab_search", { scope: "issues", search: marker, state: "opened" }));
    expect(issueHits).toEqual(await restGet(request, owner.token, `/issues?scope=all&search=${marker}&state=opened`));
    expect((issueHits as { iid: number; project_id: number }[]).map((each) => [each.project_id, each.iid])).toEqual([[project.id, created.iid]]);
    const inProject = answered(await callTool(client, "gitlab_search", { scope: "issues", search: marker, project_id: project.id, fields: ["title"] }));
    expect(inProject).toEqual(await restGet(request, owner.token, `/projects/${project.id}/issues?search=${marker}&in=title`));
    expect((inProject as { iid: number }[]).map((each) => each.iid)).toEqual([created.iid]);

    await client.close();
  });

  test("an OAuth token with the mcp scope, from the password grant, is accepted", async ({ request, baseURL }) => {
    const user = await createUser(request);
    const { access_token: accessToken, scope } = await passwordToken(request, user, { scope: "mcp" });
    expect(scope).toBe("mcp");
    const client = await connectClient(baseURL!, accessToken);
    const result = await callTool(client, "list_projects", { owned: true });
    expect(answered(result)).toEqual([]);
    expect(result.structuredContent).toEqual({ items: [], metadata: { count: 0, has_more: false } });
    await client.close();
    // The mcp scope opens the MCP server only, not the REST API.
    const rest = await request.get("/api/v4/projects", { headers: { Authorization: `Bearer ${accessToken}` } });
    expect(rest.status()).toBe(403);
    expect(await rest.json()).toEqual({
      error: "insufficient_scope",
      error_description: "The request requires higher privileges than provided by the access token.",
      scope: "read_api api",
    });
  });
});

test.describe("what a token may do through the MCP server is what it may do through the REST API", () => {
  test("a non-member of a private project gets the REST API's 404, as an error result, and changes nothing", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const stranger = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "private" });
    const marker = uniqueName("secret");
    const issue = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: `Plans ${marker}` } });
    expect(issue.status()).toBe(201);
    const client = await connectClient(baseURL!, (await createToken(request, stranger.id, ["mcp"])).token);
    const notFound = {
      content: [{ type: "text", text: "404 Project Not Found" }],
      structuredContent: { error: { message: "404 Project Not Found" } },
      isError: true,
    };
    expect(await callTool(client, "get_issue", { id: project.id, issue_iid: 1 })).toEqual(notFound);
    expect(await callTool(client, "get_project", { id: project.path_with_namespace })).toEqual(notFound);
    expect(await callTool(client, "list_alerts", { id: project.id })).toEqual(notFound);
    expect(await callTool(client, "create_issue", { id: project.id, title: "Let me in" })).toEqual(notFound);
    expect(await callTool(client, "create_issue_note", { id: project.id, issue_iid: 1, body: "Hello?" })).toEqual(notFound);
    expect(answered(await callTool(client, "gitlab_search", { scope: "issues", search: marker }))).toEqual([]);
    const issues = (await restGet(request, owner.token, `/projects/${project.id}/issues`)) as { title: string; user_notes_count: number }[];
    expect(issues.map((each) => [each.title, each.user_notes_count])).toEqual([[`Plans ${marker}`, 0]]);
    await client.close();
  });

  test("a Guest reads no alerts and a Reporter changes none, as on the REST API", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const guest = await createUser(request);
    const reporter = await createUser(request);
    const project = await createProject(request, owner.token);
    await addMember(request, owner.token, project.id, guest.id, 10);
    await addMember(request, owner.token, project.id, reporter.id, 20);
    const integration = await createIntegration(request, owner.token, project.id);
    expect((await postAlert(request, receiverPath(integration), { title: "CPU hot" }, bearer(integration.token))).status()).toBe(200);

    const asGuest = await connectClient(baseURL!, (await createToken(request, guest.id, ["mcp"])).token);
    const guestAnswer = await callTool(asGuest, "list_alerts", { id: project.id });
    const rest = await request.get(`/api/v4/projects/${project.id}/alert_management/alerts`, { headers: asToken(guest.token) });
    expect(guestAnswer).toEqual({ content: [{ type: "text", text: (await rest.json()).message }], structuredContent: { error: await rest.json() }, isError: true });
    expect(rest.status()).toBe(403);
    await asGuest.close();

    const asReporter = await connectClient(baseURL!, (await createToken(request, reporter.id, ["mcp"])).token);
    expect(answered(await callTool(asReporter, "get_alert", { id: project.id, alert_iid: 1 }))).toMatchObject({ iid: 1, status: "triggered" });
    const refused = await callTool(asReporter, "update_alert_status", { id: project.id, alert_iid: 1, status: "resolved" });
    const restRefusal = await request.put(`/api/v4/projects/${project.id}/alert_management/alerts/1`, { headers: asToken(reporter.token), data: { status: "resolved" } });
    expect(restRefusal.status()).toBe(403);
    expect(refused).toEqual({ content: [{ type: "text", text: (await restRefusal.json()).message }], structuredContent: { error: await restRefusal.json() }, isError: true });
    expect(await restGet(request, owner.token, `/projects/${project.id}/alert_management/alerts/1`)).toMatchObject({ status: "triggered" });
    await asReporter.close();
  });

  test("a read_api token sees and calls only the reading tools", async ({ request, baseURL }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const client = await connectClient(baseURL!, (await createToken(request, owner.id, ["read_api"])).token);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(readOnlyTools);
    expect(await callTool(client, "create_issue", { id: project.id, title: "Not allowed" })).toEqual({
      content: [{ type: "text", text: "insufficient_scope: The request requires higher privileges than provided by the access token." }],
      structuredContent: {
        error: { error: "insufficient_scope", error_description: "The request requires higher privileges than provided by the access token.", scope: "api" },
      },
      isError: true,
    });
    expect(await restGet(request, owner.token, `/projects/${project.id}/issues`)).toEqual([]);
    expect(answered(await callTool(client, "get_project", { id: project.id }))).toMatchObject({ id: project.id });
    await client.close();
    // An api token reaches every tool.
    const full = await connectClient(baseURL!, owner.token);
    expect((await full.listTools()).tools.map((tool) => tool.name)).toEqual([...gitlabTools, ...ourTools]);
    expect(answered(await callTool(full, "create_issue", { id: project.id, title: "Allowed" }))).toMatchObject({ iid: 1, title: "Allowed" });
    await full.close();
  });

  test("a token with none of mcp, api and read_api is refused with 403 and a step-up challenge", async ({ request, baseURL }) => {
    const user = await createUser(request);
    const token = (await createToken(request, user.id, ["read_user"])).token;
    const response = await postMessage(request, token, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(response.status()).toBe(403);
    expect(await response.json()).toEqual({
      error: "insufficient_scope",
      error_description: "The request requires higher privileges than provided by the access token.",
      scope: "mcp api read_api",
    });
    expect(response.headers()["www-authenticate"]).toBe(
      `Bearer realm="GitLab", error="insufficient_scope", error_description="The request requires higher privileges than provided by the access token.", ` +
        `scope="mcp", resource_metadata="${baseURL}/.well-known/oauth-protected-resource/api/v4/mcp"`,
    );
  });
});

test.describe("signing in to the MCP server", () => {
  test("without a token: 401 with a challenge that points at the protected resource metadata", async ({ request, baseURL }) => {
    const metadataUrl = `${baseURL}/.well-known/oauth-protected-resource/api/v4/mcp`;
    const anonymous = await postMessage(request, null, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    expect(anonymous.status()).toBe(401);
    expect(await anonymous.json()).toEqual({ message: "401 Unauthorized" });
    expect(anonymous.headers()["www-authenticate"]).toBe(`Bearer realm="GitLab", scope="mcp", resource_metadata="${metadataUrl}"`);

    const unknown = await postMessage(request, "not-a-token-anyone-issued", { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(unknown.status()).toBe(401);
    expect(await unknown.json()).toEqual({ message: "401 Unauthorized" });
    expect(unknown.headers()["www-authenticate"]).toBe(
      `Bearer realm="GitLab", error="invalid_token", error_description="The access token is invalid", scope="mcp", resource_metadata="${metadataUrl}"`,
    );

    // Our pages' session cookie is no credential here.
    const cookieOnly = await postMessage(request, null, { jsonrpc: "2.0", id: 1, method: "ping" }, { Cookie: "next-auth.session-token=anything" });
    expect(cookieOnly.status()).toBe(401);

    const user = await createUser(request);
    const revoked = await createToken(request, user.id, ["mcp"]);
    expect((await request.delete(`/api/v4/personal_access_tokens/${revoked.id}`, { headers: asToken(user.token) })).status()).toBe(204);
    const refused = await postMessage(request, revoked.token, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toEqual({ error: "invalid_token", error_description: "Token was revoked. You have to re-authorize from the user." });
    expect(refused.headers()["www-authenticate"]).toBe(
      `Bearer realm="GitLab", error="invalid_token", error_description="Token was revoked. You have to re-authorize from the user.", scope="mcp", resource_metadata="${metadataUrl}"`,
    );
  });

  test("the protected resource metadata names the MCP server, our issuer and the mcp scope", async ({ request, baseURL }) => {
    const forMcp = await request.get("/.well-known/oauth-protected-resource/api/v4/mcp");
    expect(forMcp.status()).toBe(200);
    expect(forMcp.headers()["content-type"]).toBe("application/json");
    expect(forMcp.headers()["access-control-allow-origin"]).toBe("*");
    const document = {
      resource: `${baseURL}/api/v4/mcp`,
      authorization_servers: [baseURL],
      scopes_supported: ["mcp"],
      bearer_methods_supported: ["header"],
      resource_name: "GitLab-compatible MCP server",
    };
    expect(await forMcp.json()).toEqual(document);
    const issuer = ((await (await request.get("/.well-known/openid-configuration")).json()) as { issuer: string }).issuer;
    expect(document.authorization_servers).toEqual([issuer]);
    const forHost = await request.get("/.well-known/oauth-protected-resource");
    expect(forHost.status()).toBe(200);
    expect(await forHost.json()).toEqual({ ...document, resource: baseURL });
    // The SDK's own discovery, as clients run it after a 401, finds the MCP server's document.
    expect(await discoverOAuthProtectedResourceMetadata(new URL(mcpPath, baseURL))).toEqual(document);
  });

  test("the SDK's client without a token is refused", async ({ baseURL }) => {
    await expect(connectClient(baseURL!, "")).rejects.toThrow(/401|Unauthorized/i);
  });
});
