import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { asToken, createProject, createToken, createUser, expectJson, rootToken, uniqueName } from "../support/api";
import { postMessage } from "../mcp/support";
import { serverLogFile } from "../support/constants";

test.describe("bad input is 400, never 500", () => {
  test("unreadable bodies", async ({ request }) => {
    const owner = await createUser(request);
    const headers = { ...asToken(owner.token), "Content-Type": "application/json" };
    await expectJson(await request.post("/api/v4/projects", { headers, data: Buffer.from('{"name": "broken"') }), 400, {
      message: "400 Bad request - the request body is not valid JSON",
    });
    await expectJson(await request.post("/api/v4/projects", { headers, data: Buffer.from('[{"name":"array"}]') }), 400, {
      message: "400 Bad request - the request body must be a JSON object",
    });
    await expectJson(await request.post("/api/v4/projects", { headers, data: Buffer.from('"just a string"') }), 400, {
      message: "400 Bad request - the request body must be a JSON object",
    });
    await expectJson(await request.post("/api/v4/projects", { headers, data: Buffer.from("null") }), 400, {
      message: "400 Bad request - the request body must be a JSON object",
    });
    await expectJson(
      await request.post("/api/v4/projects", { headers: { ...asToken(owner.token), "Content-Type": "text/plain" }, data: "name=plain" }),
      400,
      { message: "400 Bad request - the body must be application/json, application/x-www-form-urlencoded or multipart/form-data" },
    );
    await expectJson(
      await request.post("/api/v4/projects", { headers: { ...asToken(owner.token), "Content-Type": "application/xml" }, data: "<name/>" }),
      400,
      { message: "400 Bad request - the body must be application/json, application/x-www-form-urlencoded or multipart/form-data" },
    );
  });

  test("bodies over 1 MiB are refused with a clear message", async ({ request }) => {
    const owner = await createUser(request);
    const tooLarge = { message: "400 Bad request - the request body is larger than 1048576 bytes" };
    const big = JSON.stringify({ name: "big", description: "x".repeat(1024 * 1024) });
    await expectJson(
      await request.post("/api/v4/projects", { headers: { ...asToken(owner.token), "Content-Type": "application/json" }, data: big }),
      400,
      tooLarge,
    );
    await expectJson(
      await request.post("/api/v4/projects", { headers: asToken(owner.token), form: { name: "big", description: "x".repeat(1024 * 1024 + 1) } }),
      400,
      tooLarge,
    );
    await expectJson(
      await request.post("/api/v4/projects", {
        headers: asToken(owner.token),
        multipart: { name: "big", description: "x".repeat(1024 * 1024 + 1) },
      }),
      400,
      tooLarge,
    );
    // Just under the limit is read (and then judged on its merits).
    await expectJson(
      await request.post("/api/v4/projects", {
        headers: { ...asToken(owner.token), "Content-Type": "application/json" },
        data: JSON.stringify({ name: "big", description: "x".repeat(1024 * 1000) }),
      }),
      400,
      { error: "description is invalid" },
    );
  });

  test("form and multipart bodies are read like JSON", async ({ request }) => {
    const owner = await createUser(request);
    const form = await request.post("/api/v4/projects", { headers: asToken(owner.token), form: { name: "Form Made", visibility: "public" } });
    expect(form.status(), await form.text()).toBe(201);
    expect(await form.json()).toMatchObject({ path: "form-made", visibility: "public" });
    const multipart = await request.post("/api/v4/projects", { headers: asToken(owner.token), multipart: { name: "Multi Part" } });
    expect(multipart.status(), await multipart.text()).toBe(201);
    expect(await multipart.json()).toMatchObject({ path: "multi-part", visibility: "private" });
  });

  test("wrong types, invalid values and missing parameters; undeclared ones are ignored, as GitLab ignores them", async ({ request }) => {
    const owner = await createUser(request);
    const post = (data: unknown) => request.post("/api/v4/projects", { headers: asToken(owner.token), data });
    await expectJson(await post({ name: "x", visibility: "secret" }), 400, { error: "visibility does not have a valid value" });
    await expectJson(await post({ name: 42 }), 400, { error: "name is invalid" });
    await expectJson(await post({ name: ["a", "b"] }), 400, { error: "name is invalid" });
    await expectJson(await post({ name: null }), 400, { error: "name is invalid" });
    await expectJson(await post({}), 400, { error: "name, path are missing, at least one parameter must be provided" });
    const withColour = await post({ name: uniqueName("Coloured"), colour: "red", statistics: "True" });
    expect(withColour.status(), await withColour.text()).toBe(201);
    expect(await withColour.json()).not.toHaveProperty("colour");
    await expectJson(await post({ name: "nul\u0000byte" }), 400, { error: "name is invalid" });
    await expectJson(await post({ name: "Bad / Name" }), 400, {
      message: { name: ["can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces"] },
    });
    expect((await request.get("/api/v4/projects?colour=red&with_custom_attributes=1", { headers: asToken(owner.token) })).status()).toBe(200);
    await expectJson(await request.get("/api/v4/projects?visibility=secret"), 400, { error: "visibility does not have a valid value" });
    await expectJson(await request.get("/api/v4/projects?search=%00"), 400, { error: "search is invalid" });
    await expectJson(await request.get("/api/v4/users/abc", { headers: asToken(owner.token) }), 400, { error: "id is invalid" });
    // An integer no user can have is a path that names nothing, as on GitLab.
    await expectJson(await request.get("/api/v4/users/99999999999", { headers: asToken(owner.token) }), 404, { message: "404 User Not Found" });

    const admin = (data: unknown) => request.post("/api/v4/users", { headers: asToken(rootToken), data });
    const username = uniqueName("typed");
    await expectJson(await admin({}), 400, { error: "email is missing" });
    await expectJson(await admin({ email: `${username}@example.com`, username, name: "n" }), 400, { error: "password is missing" });
    await expectJson(await admin({ email: `${username}@example.com`, username, name: "n", password: "long enough!", admin: "yes please" }), 400, {
      error: "admin is invalid",
    });
    await expectJson(await admin({ email: `${username}\u0000@example.com`, username, name: "n", password: "long enough!" }), 400, {
      error: "email is invalid",
    });
  });

  test("page and per_page must be positive integers", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    for (const path of ["/api/v4/projects", `/api/v4/projects/${project.id}/members`, "/api/v4/personal_access_tokens"]) {
      const get = (query: string) => request.get(`${path}?${query}`, { headers: asToken(owner.token) });
      await expectJson(await get("page=0"), 400, { error: "page is invalid" });
      await expectJson(await get("page=-1"), 400, { error: "page is invalid" });
      await expectJson(await get("page=abc"), 400, { error: "page is invalid" });
      await expectJson(await get("per_page=abc"), 400, { error: "per_page is invalid" });
      await expectJson(await get("per_page=0"), 400, { error: "per_page does not have a valid value" });
      await expectJson(await get("page=1&page=2"), 400, { error: "page is invalid" });
      // A page past the end is an empty page, not an error (past 50,000 rows, project lists refuse offset pages).
      const beyond = await get(path === "/api/v4/projects" ? "page=2500" : "page=999999");
      await expectJson(beyond, 200, []);
    }
  });

  test("odd paths and references", async ({ request }) => {
    const owner = await createUser(request);
    const notFound = { message: "404 Project Not Found" };
    await expectJson(await request.get("/api/v4/projects/%2F", { headers: asToken(owner.token) }), 404, notFound);
    await expectJson(await request.get("/api/v4/projects/a%2Fb%2Fc", { headers: asToken(owner.token) }), 404, notFound);
    await expectJson(await request.get("/api/v4/projects/-1", { headers: asToken(owner.token) }), 404, notFound);
    await expectJson(await request.get(`/api/v4/projects/${"9".repeat(40)}`, { headers: asToken(owner.token) }), 404, notFound);
  });

  test("a path with malformed percent-encoding is 400, not a framework 500", async ({ request }) => {
    await expectJson(await request.get("/api/v4/projects/%E0%A4%A", { headers: asToken(rootToken) }), 400, {
      error: "path is not valid: it contains malformed percent-encoding",
    });
    const page = await request.get("/root/%E0%A4%A");
    expect(page.status()).toBe(400);
  });

  test("a malformed multipart body posted to a page is 400, not a framework 500, and logs no error", async ({ request }, testInfo) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token, { visibility: "public" });
    const logBefore = readFileSync(serverLogFile(testInfo.project.name), "utf8").length;
    const unreadable = { message: "400 Bad request - the multipart form body could not be read" };
    const pages = ["/users/sign_in", `/${owner.username}`, "/projects", `/${project.path_with_namespace}`, `/${project.path_with_namespace}/-/issues`];
    const bodies = ['--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb', "not multipart at all"];
    for (const path of pages) {
      for (const body of bodies) {
        // As a form posted without script, and as a server action's call: the framework parses both before any page code.
        for (const action of [{}, { "Next-Action": "7f".repeat(21) }] as Record<string, string>[]) {
          const response = await request.post(path, { headers: { "Content-Type": "multipart/form-data; boundary=xyz", ...action }, data: Buffer.from(body) });
          await expectJson(response, 400, unreadable);
        }
      }
    }
    // A well-formed body goes on to the framework, which finds no server action in it.
    const wellFormed = await request.post("/users/sign_in", { multipart: { a: "b" } });
    expect(wellFormed.status()).toBe(400);
    expect(wellFormed.headers()["x-nextjs-action-not-found"]).toBe("1");
    const logged = readFileSync(serverLogFile(testInfo.project.name), "utf8").slice(logBefore);
    expect(logged).not.toContain("Failed to parse body as FormData");
    expect(logged).not.toContain("Unexpected end of form");
  });

  test("the MCP server answers malformed JSON-RPC in JSON-RPC's own words, and a tool's bad arguments as its REST endpoint does", async ({ request }, testInfo) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const token = (await createToken(request, owner.id, ["mcp"])).token;
    const logBefore = readFileSync(serverLogFile(testInfo.project.name), "utf8").length;
    const headers = { "MCP-Protocol-Version": "2025-06-18" };
    const post = (body: unknown) => postMessage(request, token, body, headers);
    const rpcError = (id: unknown, code: number, message: string, data: unknown) => ({ jsonrpc: "2.0", id, error: { code, message, data } });

    await expectJson(await post('{"jsonrpc": "2.0", "id": 1, "method": "ping"'), 400, rpcError(null, -32700, "Parse error", "the request body is not valid JSON"));
    await expectJson(await post(""), 400, rpcError(null, -32700, "Parse error", "the request body is not valid JSON"));
    await expectJson(await post("null"), 400, rpcError(null, -32600, "Invalid Request", "a JSON-RPC message is an object"));
    await expectJson(await post({ jsonrpc: "1.0", id: 1, method: "ping" }), 400, rpcError(1, -32600, "Invalid Request", 'jsonrpc must be "2.0"'));
    await expectJson(await post({ id: 1, method: "ping" }), 400, rpcError(1, -32600, "Invalid Request", 'jsonrpc must be "2.0"'));
    await expectJson(await post({ jsonrpc: "2.0", id: [1], method: "ping" }), 400, rpcError(null, -32600, "Invalid Request", "id must be a string or an integer"));
    await expectJson(await post({ jsonrpc: "2.0", id: 1, method: 7 }), 400, rpcError(1, -32600, "Invalid Request", "method must be a non-empty string"));
    await expectJson(await post({ jsonrpc: "2.0", id: 1 }), 400, rpcError(1, -32600, "Invalid Request", "method is missing"));
    await expectJson(await post({ jsonrpc: "2.0", id: 1, method: "ping", params: "x" }), 400, rpcError(1, -32602, "Invalid params", "params must be an object"));
    await expectJson(await post({ jsonrpc: "2.0", id: 1, method: "sampling/createMessage" }), 200, rpcError(1, -32601, "Method not found", { method: "sampling/createMessage" }));
    await expectJson(await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: 42 } }), 200, rpcError(2, -32602, "Invalid params", "name must be a string"));
    await expectJson(
      await post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_project", arguments: [project.id] } }),
      200,
      rpcError(3, -32602, "Invalid params", "arguments must be an object"),
    );
    await expectJson(await post({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "drop_database" } }), 200, rpcError(4, -32602, "Unknown tool: drop_database", { name: "drop_database" }));

    const deep = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_issue","arguments":{"id":${project.id},"title":"x","labels":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}`;
    await expectJson(await post(deep), 400, rpcError(null, -32600, "Invalid Request", "the request body is nested deeper than 100 levels"));
    // The REST API refuses the same list as a bad parameter.
    await expectJson(
      await request.post(`/api/v4/projects/${project.id}/issues`, {
        headers: { ...asToken(owner.token), "Content-Type": "application/json" },
        data: Buffer.from(`{"title":"x","labels":${"[".repeat(100_000)}"a"${"]".repeat(100_000)}}`),
      }),
      400,
      { error: "labels is invalid" },
    );

    // A body larger than the longest description a tool takes is refused before it is read whole.
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "create_issue", arguments: { id: project.id, title: "Huge", description: "x".repeat(4 * 1024 * 1024) } } });
    await expectJson(await post(huge), 413, rpcError(null, -32600, "Invalid Request", "the request body is larger than 4194304 bytes"));

    // A tool's arguments meet its REST endpoint's parameter checks, and its refusals are error results.
    const toolError = (id: number, text: string, error: unknown) => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], structuredContent: { error }, isError: true } });
    const call = (id: number, name: string, args: unknown) => post({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    await expectJson(await call(6, "create_issue", { id: project.id }), 200, toolError(6, "title is missing", { error: "title is missing" }));
    await expectJson(await call(7, "create_issue", { id: project.id, title: ["a"] }), 200, toolError(7, "title is invalid", { error: "title is invalid" }));
    await expectJson(await call(8, "create_issue", { id: project.id, title: "nul\u0000" }), 200, toolError(8, "title is invalid", { error: "title is invalid" }));
    await expectJson(await call(9, "get_issue", { id: project.id, issue_iid: "one" }), 200, toolError(9, "issue_iid is invalid", { error: "issue_iid is invalid" }));
    await expectJson(await call(10, "get_issue", { id: { nested: true }, issue_iid: 1 }), 200, toolError(10, "id is invalid", { error: "id is invalid" }));
    await expectJson(await call(11, "list_project_events", { id: project.id, action: "exploded" }), 200, toolError(11, "action does not have a valid value", { error: "action does not have a valid value" }));
    await expectJson(await call(12, "list_project_events", { id: project.id, before: "2024-02-30" }), 200, toolError(12, "before is invalid", { error: "before is invalid" }));
    await expectJson(await call(13, "list_alerts", { id: project.id, status: ["on fire"] }), 200, toolError(13, "status does not have a valid value", { error: "status does not have a valid value" }));
    await expectJson(await call(14, "list_projects", { per_page: 0 }), 200, toolError(14, "per_page does not have a valid value", { error: "per_page does not have a valid value" }));
    await expectJson(await call(15, "gitlab_search", { scope: "wiki_blobs", search: "x" }), 200, toolError(15, "scope does not have a valid value", { error: "scope does not have a valid value" }));
    await expectJson(await call(16, "gitlab_search", { scope: "projects", search: "x", project_id: project.id }), 200, toolError(16, "scope does not have a valid value", { error: "scope does not have a valid value" }));
    await expectJson(await call(17, "gitlab_search", { scope: "issues", search: "x", group_id: "anything" }), 200, toolError(17, "404 Group Not Found", { message: "404 Group Not Found" }));
    await expectJson(await call(18, "gitlab_search", { scope: "issues" }), 200, toolError(18, "search is missing", { error: "search is missing" }));
    // Undeclared arguments are dropped, as the REST API drops undeclared parameters.
    const ordinary = await call(19, "get_project", { id: project.id, statistics: true, with_custom_attributes: "yes" });
    expect(ordinary.status()).toBe(200);
    expect(((await ordinary.json()) as { result: { isError: boolean } }).result.isError).toBe(false);

    const logged = readFileSync(serverLogFile(testInfo.project.name), "utf8").slice(logBefore);
    expect(logged).not.toContain('"level":50');
  });
});
