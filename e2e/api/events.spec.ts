import { expect, test, type APIResponse } from "@playwright/test";
import { asToken, createProject, createToken, createUser, expectJson } from "../support/api";

const insufficientScope = (scope: string) => ({
  error: "insufficient_scope",
  error_description: "The request requires higher privileges than provided by the access token.",
  scope,
});

test.describe("Events API over HTTP", () => {
  test("read_user tokens read /events and /users/:id/events but not project events", async ({ request }) => {
    const user = await createUser(request);
    const project = await createProject(request, user.token);
    const readUser = await createToken(request, user.id, ["read_user"]);

    const own = await request.get("/api/v4/events", { headers: asToken(readUser.token) });
    expect(own.status()).toBe(200);
    expect(((await own.json()) as { action_name: string }[]).map((event) => event.action_name)).toEqual(["created"]);
    expect((await request.get(`/api/v4/users/${user.id}/events`, { headers: asToken(readUser.token) })).status()).toBe(200);
    await expectJson(
      await request.get(`/api/v4/projects/${project.id}/events`, { headers: asToken(readUser.token) }),
      403,
      insufficientScope("read_api api"),
    );

    const readRepository = await createToken(request, user.id, ["read_repository"]);
    await expectJson(await request.get("/api/v4/events", { headers: asToken(readRepository.token) }), 403, insufficientScope("read_user read_api api"));
    const readApi = await createToken(request, user.id, ["read_api"]);
    expect((await request.get(`/api/v4/projects/${project.id}/events`, { headers: asToken(readApi.token) })).status()).toBe(200);
  });

  test("anonymous: 401 on /events, public data elsewhere; unknown users and projects are 404", async ({ request }) => {
    const user = await createUser(request);
    const project = await createProject(request, user.token, { visibility: "public" });
    await expectJson(await request.get("/api/v4/events"), 401, { message: "401 Unauthorized" });
    expect((await request.get(`/api/v4/users/${user.username}/events`)).status()).toBe(200);
    expect((await request.get(`/api/v4/projects/${project.id}/events`)).status()).toBe(200);
    await expectJson(await request.get("/api/v4/users/no_such_user_anywhere/events"), 404, { message: "404 User Not Found" });
    await expectJson(await request.get("/api/v4/projects/2147483647/events", { headers: asToken(user.token) }), 404, { message: "404 Project Not Found" });
    await expectJson(await request.get("/api/v4/events", { headers: { "PRIVATE-TOKEN": "garbage-token-value" } }), 401, { message: "401 Unauthorized" });
  });

  test("bad filter values are 400 with the parameter named", async ({ request }) => {
    const user = await createUser(request);
    const headers = asToken(user.token);
    await expectJson(await request.get("/api/v4/events?action=bogus", { headers }), 400, { error: "action does not have a valid value" });
    await expectJson(await request.get("/api/v4/events?target_type=bogus", { headers }), 400, { error: "target_type does not have a valid value" });
    await expectJson(await request.get(`/api/v4/users/${user.id}/events?target_type=epicish`, { headers }), 400, { error: "target_type does not have a valid value" });
    await expectJson(await request.get("/api/v4/events?before=2024-13-01", { headers }), 400, { error: "before is invalid" });
    await expectJson(await request.get("/api/v4/events?sort=sideways", { headers }), 400, { error: "sort does not have a valid value" });
  });

  test("ETag and If-None-Match: 304 until something changes", async ({ request }) => {
    const user = await createUser(request);
    const project = await createProject(request, user.token);
    const headers = asToken(user.token);
    const first = await request.get(`/api/v4/projects/${project.id}/events`, { headers });
    const etag = first.headers()["etag"]!;
    expect(etag).toMatch(/^W\/".+"$/);

    const unchanged = await request.get(`/api/v4/projects/${project.id}/events`, { headers: { ...headers, "If-None-Match": etag } });
    expect(unchanged.status()).toBe(304);
    expect(await unchanged.text()).toBe("");
    expect(unchanged.headers()["etag"]).toBe(etag);

    const issue = await request.post(`/api/v4/projects/${project.id}/issues`, { headers, data: { title: "Something new" } });
    expect(issue.status()).toBe(201);
    const changed = await request.get(`/api/v4/projects/${project.id}/events`, { headers: { ...headers, "If-None-Match": etag } });
    expect(changed.status()).toBe(200);
    expect(changed.headers()["etag"]).not.toBe(etag);
    expect(((await changed.json()) as { action_name: string; target_title: string }[])[0]).toMatchObject({ action_name: "opened", target_title: "Something new" });
  });

  test("keyset pages: Link rel=next carries id_before and every filter", async ({ request, baseURL }) => {
    const user = await createUser(request);
    const project = await createProject(request, user.token);
    const headers = asToken(user.token);
    for (let index = 0; index < 5; index += 1) {
      expect((await request.post(`/api/v4/projects/${project.id}/issues`, { headers, data: { title: `Issue ${index}` } })).status()).toBe(201);
    }
    const ids: number[] = [];
    let next: string | null = `/api/v4/projects/${project.id}/events?pagination=keyset&per_page=2&target_type=issue`;
    while (next) {
      const response: APIResponse = await request.get(next, { headers });
      expect(response.status()).toBe(200);
      ids.push(...((await response.json()) as { id: number }[]).map((event) => event.id));
      const link: string | undefined = response.headers()["link"];
      const match: RegExpMatchArray | null | undefined = link?.match(/<([^>]+)>; rel="next"/);
      if (match) {
        expect(match[1]).toContain(`${baseURL}/api/v4/projects/${project.id}/events?`);
        expect(match[1]).toContain("target_type=issue");
        expect(match[1]).toMatch(/id_before=\d+/);
      }
      next = match ? match[1]! : null;
    }
    expect(ids).toHaveLength(5);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
  });
});

test.describe("event retention endpoint", () => {
  test("admins prune on demand; others are refused", async ({ request }) => {
    const user = await createUser(request);
    await expectJson(await request.post("/api/v4/admin/events/prune", { headers: asToken(user.token) }), 403, { message: "403 Forbidden" });
    await expectJson(await request.post("/api/v4/admin/events/prune"), 401, { message: "401 Unauthorized" });
    const admin = await createUser(request, { admin: true });
    const response = await request.post("/api/v4/admin/events/prune", { headers: asToken(admin.token) });
    expect(response.status(), await response.text()).toBe(200);
    const body = (await response.json()) as { ran: boolean; deleted: number; cutoff: string };
    expect(body.ran).toBe(true);
    expect(body.deleted).toBe(0);
    expect(Date.now() - new Date(body.cutoff).getTime()).toBeGreaterThan(729 * 24 * 3600 * 1000);
    // Recent events are untouched.
    expect((await request.get("/api/v4/events", { headers: asToken(user.token) })).status()).toBe(200);
  });
});
