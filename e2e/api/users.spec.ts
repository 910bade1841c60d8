import { expect, test } from "@playwright/test";
import { asToken, createUser, expectJson, isoTimestamp, privateUserEntity, publicUserEntity, rootToken, uniqueName } from "../support/api";

const publicUser = publicUserEntity;

/** Users made by createUser (and with skip_confirmation) are confirmed when created. */
function privateUser(baseURL: string | undefined, user: { id: number; username: string; email: string }, isAdmin = false) {
  return privateUserEntity(baseURL, user, { isAdmin });
}

test.describe("users", () => {
  test("POST /users creates a user and shows the admin view", async ({ request, baseURL }) => {
    const username = uniqueName("Created");
    const response = await request.post("/api/v4/users", {
      headers: asToken(rootToken),
      data: {
        username,
        email: `${username}@Example.com`,
        name: `User ${username}`,
        password: "a long enough password",
        skip_confirmation: true,
      },
    });
    const body = (await response.json()) as { id: number };
    await expectJson(response, 201, privateUser(baseURL, { id: body.id, username, email: `${username.toLowerCase()}@example.com` }));

    const admin = await request.post("/api/v4/users", {
      headers: asToken(rootToken),
      data: { username: `${username}_a`, email: `${username}_a@example.com`, name: "An admin", password: "a long enough password", admin: true },
    });
    expect(admin.status()).toBe(201);
    // Without skip_confirmation the address waits for its owner to open the link mailed to it.
    expect(await admin.json()).toMatchObject({ is_admin: true, confirmed_at: null });
  });

  test("duplicates are 409, case-insensitively", async ({ request }) => {
    const existing = await createUser(request);
    const fresh = uniqueName("fresh");
    await expectJson(
      await request.post("/api/v4/users", {
        headers: asToken(rootToken),
        data: { username: fresh, email: existing.email.toUpperCase(), name: "Dup", password: "a long enough password" },
      }),
      409,
      { message: "Email has already been taken" },
    );
    await expectJson(
      await request.post("/api/v4/users", {
        headers: asToken(rootToken),
        data: { username: existing.username.toUpperCase(), email: `${fresh}@example.com`, name: "Dup", password: "a long enough password" },
      }),
      409,
      { message: "Username has already been taken" },
    );
  });

  test("model validation failures are 400 with GitLab's message object", async ({ request }) => {
    const username = uniqueName("invalid");
    await expectJson(
      await request.post("/api/v4/users", {
        headers: asToken(rootToken),
        data: { username, email: `${username}@example.com`, name: "Short", password: "short" },
      }),
      400,
      { message: { password: ["is too short (minimum is 8 characters)"] } },
    );
    await expectJson(
      await request.post("/api/v4/users", {
        headers: asToken(rootToken),
        data: { username: "api", email: `${username}@example.com`, name: "Reserved", password: "a long enough password" },
      }),
      400,
      { message: { username: ["is reserved"] } },
    );
    await expectJson(
      await request.post("/api/v4/users", {
        headers: asToken(rootToken),
        data: { username, email: "not-an-email", name: "Bad email", password: "a long enough password" },
      }),
      400,
      { message: { email: ["is invalid"] } },
    );
  });

  test("private fields are shown to the user themselves and to admins only", async ({ request, baseURL }) => {
    const user = await createUser(request);
    const other = await createUser(request);
    await expectJson(await request.get("/api/v4/user", { headers: asToken(user.token) }), 200, privateUser(baseURL, user));
    await expectJson(await request.get(`/api/v4/users/${user.id}`, { headers: asToken(user.token) }), 200, privateUser(baseURL, user));
    await expectJson(await request.get(`/api/v4/users/${user.id}`, { headers: asToken(rootToken) }), 200, privateUser(baseURL, user));
    await expectJson(await request.get(`/api/v4/users/${user.id}`, { headers: asToken(other.token) }), 200, publicUser(baseURL, user));
    await expectJson(await request.get(`/api/v4/users/${user.id}`), 200, publicUser(baseURL, user));
  });

  test("GET /users?username= finds one user case-insensitively, anonymously too", async ({ request, baseURL }) => {
    const user = await createUser(request);
    await expectJson(await request.get(`/api/v4/users?username=${user.username.toUpperCase()}`), 200, [publicUser(baseURL, user)]);
    await expectJson(
      await request.get(`/api/v4/users?username=${user.username}`, { headers: asToken(user.token) }),
      200,
      [privateUser(baseURL, user)],
    );
    await expectJson(await request.get(`/api/v4/users?username=${uniqueName("nobody")}`), 200, []);
  });

  test("search finds an email address only whole unless an admin asks, so private addresses cannot be spelled out", async ({ request, baseURL }) => {
    const user = await createUser(request);
    const other = await createUser(request);
    const admin = await createUser(request, { admin: true });
    const prefix = user.email.slice(0, user.email.indexOf("@") + 2);
    // The probe: does the address start with these letters?
    for (const [who, headers] of [
      ["anonymous", {}],
      ["another user", asToken(other.token)],
    ] as const) {
      await expectJson(await request.get(`/api/v4/users?username=${user.username}&search=${encodeURIComponent(prefix)}`, { headers }), 200, []);
      await expectJson(await request.get(`/api/v4/users?username=${user.username}&search=example.com`, { headers }), 200, []);
      // The whole address, in any case, is a match, as on GitLab.
      const whole = await request.get(`/api/v4/users?username=${user.username}&search=${encodeURIComponent(user.email.toUpperCase())}`, { headers });
      expect(((await whole.json()) as { id: number }[]).map((found) => found.id), who).toEqual([user.id]);
    }
    // Names and usernames still match in part.
    const byName = await request.get(`/api/v4/users?search=${user.username.slice(2)}`, { headers: asToken(other.token) });
    expect(((await byName.json()) as { id: number }[]).map((found) => found.id)).toEqual([user.id]);
    // Admins search addresses in part.
    await expectJson(await request.get(`/api/v4/users?search=${encodeURIComponent(prefix)}`, { headers: asToken(admin.token) }), 200, [privateUser(baseURL, user)]);
  });
});

test.describe("personal access token creation", () => {
  test("an admin creates a token; it is shown once with the glpat- prefix and works", async ({ request }) => {
    const user = await createUser(request);
    const response = await request.post(`/api/v4/users/${user.id}/personal_access_tokens`, {
      headers: asToken(rootToken),
      data: { name: "ci", scopes: ["read_api", "read_user"], expires_at: "2999-12-31" },
    });
    const body = (await response.json()) as { id: number; token: string };
    await expectJson(response, 201, {
      id: expect.any(Number),
      name: "ci",
      revoked: false,
      created_at: isoTimestamp,
      scopes: ["read_api", "read_user"],
      user_id: user.id,
      active: true,
      expires_at: "2999-12-31",
      token: expect.stringMatching(/^glpat-[A-Za-z0-9_-]{43}$/),
    });
    const self = await request.get("/api/v4/user", { headers: asToken(body.token) });
    expect(self.status()).toBe(200);
    expect((await self.json()).id).toBe(user.id);
    // Listing never shows the token again.
    const listed = await request.get(`/api/v4/personal_access_tokens/${body.id}`, { headers: asToken(rootToken) });
    expect(listed.status()).toBe(200);
    expect(await listed.json()).not.toHaveProperty("token");
  });

  test("scopes given as a comma-separated string are accepted", async ({ request }) => {
    const user = await createUser(request);
    const response = await request.post(`/api/v4/users/${user.id}/personal_access_tokens`, {
      headers: asToken(rootToken),
      form: { name: "form", scopes: "api,read_user" },
    });
    expect(response.status(), await response.text()).toBe(201);
    expect((await response.json()).scopes).toEqual(["api", "read_user"]);
  });

  test("bad token requests are 400 or 404", async ({ request }) => {
    const user = await createUser(request);
    const path = `/api/v4/users/${user.id}/personal_access_tokens`;
    await expectJson(await request.post(path, { headers: asToken(rootToken), data: { name: "x", scopes: ["everything"] } }), 400, {
      error: "scopes does not have a valid value",
    });
    await expectJson(await request.post(path, { headers: asToken(rootToken), data: { scopes: ["api"] } }), 400, {
      error: "name is missing",
    });
    await expectJson(await request.post(path, { headers: asToken(rootToken), data: { name: "x", scopes: ["api"], expires_at: "2001-01-01" } }), 400, {
      message: { expires_at: ["must be in the future"] },
    });
    await expectJson(await request.post(path, { headers: asToken(rootToken), data: { name: "x", scopes: ["api"], expires_at: "tomorrow" } }), 400, {
      error: "expires_at is invalid",
    });
    await expectJson(
      await request.post("/api/v4/users/2147483647/personal_access_tokens", { headers: asToken(rootToken), data: { name: "x", scopes: ["api"] } }),
      404,
      { message: "404 User Not Found" },
    );
  });
});
