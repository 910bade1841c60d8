import { expect, test } from "@playwright/test";
import { asToken, createProject, createToken, createUser, expectJson, isoTimestamp, privateUserEntity, rootToken } from "../support/api";

const unauthorized = { message: "401 Unauthorized" };
const revoked = { error: "invalid_token", error_description: "Token was revoked. You have to re-authorize from the user." };

function insufficientScope(scope: string) {
  return {
    error: "insufficient_scope",
    error_description: "The request requires higher privileges than provided by the access token.",
    scope,
  };
}

test.describe("token authentication", () => {
  test("the root token works in each of the four accepted places", async ({ request, baseURL }) => {
    // Browser tests sign root in, so when it last did depends on what ran before.
    const signedIn = ((await (await request.get("/api/v4/user", { headers: asToken(rootToken) })).json()) as { last_sign_in_at: string | null })
      .last_sign_in_at;
    const rootUser = privateUserEntity(
      baseURL,
      { id: expect.any(Number), username: "root", name: "Administrator", email: "admin@example.com" },
      { isAdmin: true, lastSignInAt: signedIn === null ? null : isoTimestamp },
    );
    await expectJson(await request.get("/api/v4/user", { headers: { "PRIVATE-TOKEN": rootToken } }), 200, rootUser);
    await expectJson(await request.get("/api/v4/user", { headers: { Authorization: `Bearer ${rootToken}` } }), 200, rootUser);
    await expectJson(await request.get(`/api/v4/user?private_token=${rootToken}`), 200, rootUser);
    await expectJson(await request.get(`/api/v4/user?access_token=${rootToken}`), 200, rootUser);
  });

  test("no credentials on an authenticated endpoint is 401", async ({ request }) => {
    await expectJson(await request.get("/api/v4/user"), 401, unauthorized);
    await expectJson(await request.post("/api/v4/projects", { data: { name: "x" } }), 401, unauthorized);
  });

  test("an unknown token is 401 everywhere, even where anonymous access is allowed", async ({ request }) => {
    const garbage = "glpat-this-token-was-never-issued";
    await expectJson(await request.get("/api/v4/user", { headers: asToken(garbage) }), 401, unauthorized);
    await expectJson(await request.get("/api/v4/projects", { headers: asToken(garbage) }), 401, unauthorized);
    await expectJson(await request.get("/api/v4/projects", { headers: { Authorization: `Bearer ${garbage}` } }), 401, unauthorized);
    await expectJson(await request.get(`/api/v4/projects?private_token=${garbage}`), 401, unauthorized);
    await expectJson(await request.get(`/api/v4/users?username=root&access_token=${garbage}`), 401, unauthorized);
    // Anonymous access itself still works.
    const anonymous = await request.get("/api/v4/projects");
    expect(anonymous.status()).toBe(200);
  });

  test("a token lacking the endpoint's scope is 403 insufficient_scope", async ({ request }) => {
    const user = await createUser(request);
    const { token } = await createToken(request, user.id, ["read_user"]);
    await expectJson(
      await request.post("/api/v4/projects", { headers: asToken(token), data: { name: "Nope" } }),
      403,
      insufficientScope("api"),
    );
    await expectJson(await request.get("/api/v4/projects", { headers: asToken(token) }), 403, insufficientScope("read_api api"));
    // The scope it has is enough where it is accepted.
    const self = await request.get("/api/v4/user", { headers: asToken(token) });
    expect(self.status()).toBe(200);
    expect((await self.json()).id).toBe(user.id);

    const readApi = await createToken(request, user.id, ["read_api"]);
    expect((await request.get("/api/v4/projects", { headers: asToken(readApi.token) })).status()).toBe(200);
    await expectJson(
      await request.post("/api/v4/projects", { headers: asToken(readApi.token), data: { name: "Nope" } }),
      403,
      insufficientScope("api"),
    );
  });

  test("non-admins are refused the admin endpoints with 403, whatever the body", async ({ request }) => {
    const user = await createUser(request);
    const forbidden = { message: "403 Forbidden" };
    await expectJson(
      await request.post("/api/v4/users", {
        headers: asToken(user.token),
        data: { username: "someone_new", email: "someone_new@example.com", name: "New", password: "long enough password" },
      }),
      403,
      forbidden,
    );
    await expectJson(await request.post("/api/v4/users", { headers: asToken(user.token), data: {} }), 403, forbidden);
    await expectJson(
      await request.post(`/api/v4/users/${user.id}/personal_access_tokens`, {
        headers: asToken(user.token),
        data: { name: "self-service", scopes: ["api"] },
      }),
      403,
      forbidden,
    );
  });
});

test.describe("revoking personal access tokens", () => {
  test("the owner revokes a token; it stops working at once with invalid_token", async ({ request }) => {
    const user = await createUser(request);
    const second = await createToken(request, user.id, ["api"]);
    expect((await request.get("/api/v4/user", { headers: asToken(second.token) })).status()).toBe(200);

    const revoke = await request.delete(`/api/v4/personal_access_tokens/${second.id}`, { headers: asToken(user.token) });
    expect(revoke.status()).toBe(204);
    expect(await revoke.text()).toBe("");

    for (const headers of [asToken(second.token), { Authorization: `Bearer ${second.token}` }]) {
      const response = await request.get("/api/v4/user", { headers });
      await expectJson(response, 401, revoked);
      expect(response.headers()["www-authenticate"]).toContain('error="invalid_token"');
    }
    // Also on endpoints that would serve anonymous callers.
    await expectJson(await request.get("/api/v4/projects", { headers: asToken(second.token) }), 401, revoked);
    // The owner's other token is unaffected.
    expect((await request.get("/api/v4/user", { headers: asToken(user.token) })).status()).toBe(200);
  });

  test("another user cannot revoke (404), an admin can (204), a missing id is 404", async ({ request }) => {
    const owner = await createUser(request);
    const stranger = await createUser(request);
    const target = await createToken(request, owner.id, ["api"]);
    const notFound = { message: "404 Personal Access Token Not Found" };

    await expectJson(
      await request.delete(`/api/v4/personal_access_tokens/${target.id}`, { headers: asToken(stranger.token) }),
      404,
      notFound,
    );
    expect((await request.get("/api/v4/user", { headers: asToken(target.token) })).status()).toBe(200);

    expect((await request.delete(`/api/v4/personal_access_tokens/${target.id}`, { headers: asToken(rootToken) })).status()).toBe(204);
    await expectJson(await request.get("/api/v4/user", { headers: asToken(target.token) }), 401, revoked);

    await expectJson(await request.delete("/api/v4/personal_access_tokens/2147483647", { headers: asToken(rootToken) }), 404, notFound);
    await expectJson(await request.delete(`/api/v4/personal_access_tokens/${target.id}`), 401, unauthorized);
  });

  test("a token may revoke itself", async ({ request }) => {
    const user = await createUser(request);
    const self = await request.get("/api/v4/personal_access_tokens", { headers: asToken(user.token) });
    const [only] = (await self.json()) as { id: number }[];
    expect((await request.delete(`/api/v4/personal_access_tokens/${only!.id}`, { headers: asToken(user.token) })).status()).toBe(204);
    await expectJson(await request.get("/api/v4/user", { headers: asToken(user.token) }), 401, revoked);
  });

  test("GET /personal_access_tokens lists the caller's tokens; admins may pass user_id", async ({ request }) => {
    const user = await createUser(request);
    const other = await createUser(request);
    const second = await createToken(request, user.id, ["read_user"], { expires_at: "2999-01-01" });
    await request.delete(`/api/v4/personal_access_tokens/${second.id}`, { headers: asToken(rootToken) });

    const expected = [
      {
        id: expect.any(Number),
        name: "e2e",
        revoked: false,
        created_at: isoTimestamp,
        scopes: ["api"],
        user_id: user.id,
        active: true,
        expires_at: null,
      },
      {
        id: second.id,
        name: expect.any(String),
        revoked: true,
        created_at: isoTimestamp,
        scopes: ["read_user"],
        user_id: user.id,
        active: false,
        expires_at: "2999-01-01",
      },
    ];
    const own = await request.get("/api/v4/personal_access_tokens", { headers: asToken(user.token) });
    await expectJson(own, 200, expected);
    expect(own.headers()["x-total"]).toBe("2");
    await expectJson(
      await request.get(`/api/v4/personal_access_tokens?user_id=${user.id}`, { headers: asToken(user.token) }),
      200,
      expected,
    );
    await expectJson(
      await request.get(`/api/v4/personal_access_tokens?user_id=${user.id}`, { headers: asToken(rootToken) }),
      200,
      expected,
    );
    await expectJson(
      await request.get(`/api/v4/personal_access_tokens?user_id=${user.id}&revoked=false`, { headers: asToken(rootToken) }),
      200,
      [expected[0]],
    );
    await expectJson(
      await request.get(`/api/v4/personal_access_tokens?user_id=${user.id}&state=inactive`, { headers: asToken(rootToken) }),
      200,
      [expected[1]],
    );
    // Non-admins cannot look at someone else's tokens (GitLab answers 401).
    await expectJson(
      await request.get(`/api/v4/personal_access_tokens?user_id=${other.id}`, { headers: asToken(user.token) }),
      401,
      unauthorized,
    );
    await expectJson(await request.get("/api/v4/personal_access_tokens"), 401, unauthorized);
  });
});

test.describe("not found", () => {
  test("an unknown route is GitLab's JSON 404 for every method, with or without a token", async ({ request }) => {
    const body = { error: "404 Not Found" };
    for (const path of ["/api/v4/nope", "/api/v4/projects/1/nope/deeper", "/api/v4/users/1/unknown"]) {
      await expectJson(await request.get(path), 404, body);
      await expectJson(await request.get(path, { headers: asToken(rootToken) }), 404, body);
      await expectJson(await request.post(path, { data: {} }), 404, body);
      await expectJson(await request.put(path, { data: {} }), 404, body);
      await expectJson(await request.patch(path, { data: {} }), 404, body);
      await expectJson(await request.delete(path), 404, body);
      await expectJson(await request.fetch(path, { method: "OPTIONS" }), 404, body);
      const head = await request.head(path);
      expect(head.status()).toBe(404);
    }
  });

  test("a method a known path does not serve is the same JSON 404", async ({ request }) => {
    const body = { error: "404 Not Found" };
    const headers = asToken(rootToken);
    await expectJson(await request.delete("/api/v4/projects", { headers }), 404, body);
    await expectJson(await request.put("/api/v4/user", { headers, data: {} }), 404, body);
    await expectJson(await request.post("/api/v4/users/1", { headers, data: {} }), 404, body);
    await expectJson(await request.get("/api/v4/users/1/personal_access_tokens", { headers }), 404, body);
    await expectJson(await request.patch("/api/v4/personal_access_tokens/1", { headers, data: {} }), 404, body);
    const response = await request.delete("/api/v4/projects");
    expect(response.headers()["x-request-id"]).toBeTruthy();
  });

  test("missing users and missing or private projects are 404 with the thing named", async ({ request }) => {
    const userNotFound = { message: "404 User Not Found" };
    const projectNotFound = { message: "404 Project Not Found" };
    await expectJson(await request.get("/api/v4/users/2147483647", { headers: asToken(rootToken) }), 404, userNotFound);
    await expectJson(await request.get("/api/v4/users/2147483647"), 404, userNotFound);

    const owner = await createUser(request);
    const stranger = await createUser(request);
    const project = await createProject(request, owner.token);
    await expectJson(await request.get("/api/v4/projects/2147483647", { headers: asToken(owner.token) }), 404, projectNotFound);
    await expectJson(await request.get("/api/v4/projects/99999999999", { headers: asToken(owner.token) }), 404, projectNotFound);
    await expectJson(await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(stranger.token) }), 404, projectNotFound);
    await expectJson(await request.get(`/api/v4/projects/${project.id}`), 404, projectNotFound);
    await expectJson(
      await request.get(`/api/v4/projects/${encodeURIComponent(project.path_with_namespace)}`, { headers: asToken(stranger.token) }),
      404,
      projectNotFound,
    );
    await expectJson(
      await request.get(`/api/v4/projects/${encodeURIComponent(`${owner.username}/missing`)}`, { headers: asToken(owner.token) }),
      404,
      projectNotFound,
    );
    await expectJson(await request.get(`/api/v4/projects/${project.id}/members`, { headers: asToken(stranger.token) }), 404, projectNotFound);
    await expectJson(
      await request.post(`/api/v4/projects/${project.id}/members`, {
        headers: asToken(stranger.token),
        data: { user_id: stranger.id, access_level: 30 },
      }),
      404,
      projectNotFound,
    );
  });
});
