import { expect, test } from "@playwright/test";
import { asToken, createUser, expectJson, rootToken, uniqueName } from "../support/api";
import { callbackUrl, passwordToken, type CreatedApplication } from "../support/oauth";

test("admins create, list, renew the secret of and delete applications", async ({ request }) => {
  const name = uniqueName("crud");
  const created = await request.post("/api/v4/applications", {
    headers: asToken(rootToken),
    data: { name, redirect_uri: `${callbackUrl}\nhttp://localhost:9/other`, scopes: "api read_user" },
  });
  expect(created.status(), await created.text()).toBe(201);
  const app = (await created.json()) as CreatedApplication;
  expect(Object.keys(app)).toEqual(["id", "application_id", "application_name", "callback_url", "confidential", "secret"]);
  expect(app).toMatchObject({ application_name: name, callback_url: `${callbackUrl}\nhttp://localhost:9/other`, confidential: true });
  expect(app.application_id).toMatch(/^[0-9a-f]{64}$/);
  expect(app.secret).toMatch(/^gloas-/);

  // Oldest first, as GitLab lists them: the newest application is on the last page.
  let listed: Record<string, unknown> | undefined;
  for (let page = "1"; !listed && page !== ""; ) {
    const list = await request.get(`/api/v4/applications?per_page=100&page=${page}`, { headers: asToken(rootToken) });
    expect(list.status()).toBe(200);
    listed = ((await list.json()) as Record<string, unknown>[]).find((entry) => entry.id === app.id);
    page = list.headers()["x-next-page"] ?? "";
  }
  expect(listed).toEqual({
    id: app.id,
    application_id: app.application_id,
    application_name: name,
    callback_url: app.callback_url,
    confidential: true,
  });

  const user = await createUser(request);
  const withSecret = (secret: string) =>
    request.post("/oauth/token", {
      form: { grant_type: "password", username: user.username, password: user.password, client_id: app.application_id, client_secret: secret },
    });
  expect((await withSecret(app.secret)).status()).toBe(200);
  const tokens = await passwordToken(request, user, { client_id: app.application_id, client_secret: app.secret });

  const renewed = await request.post(`/api/v4/applications/${app.id}/renew-secret`, { headers: asToken(rootToken) });
  expect(renewed.status()).toBe(201);
  const renewedBody = (await renewed.json()) as CreatedApplication;
  expect(renewedBody).toMatchObject({ id: app.id, application_id: app.application_id, application_name: name });
  expect(renewedBody.secret).not.toBe(app.secret);
  const old = await withSecret(app.secret);
  expect(old.status()).toBe(401);
  expect(((await old.json()) as { error: string }).error).toBe("invalid_client");
  expect((await withSecret(renewedBody.secret)).status()).toBe(200);

  const deleted = await request.delete(`/api/v4/applications/${app.id}`, { headers: asToken(rootToken) });
  expect(deleted.status()).toBe(204);
  // Its tokens go with it.
  expect((await request.get("/oauth/token/info", { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status()).toBe(401);
  await expectJson(await request.delete(`/api/v4/applications/${app.id}`, { headers: asToken(rootToken) }), 404, {
    message: "404 Application Not Found",
  });
  await expectJson(await request.post(`/api/v4/applications/${app.id}/renew-secret`, { headers: asToken(rootToken) }), 404, {
    message: "404 Application Not Found",
  });
});

test("applications API refuses non-admins, anonymous callers and bad input", async ({ request }) => {
  const user = await createUser(request);
  const valid = { name: uniqueName("bad"), redirect_uri: callbackUrl, scopes: "api" };
  await expectJson(await request.post("/api/v4/applications", { headers: asToken(user.token), data: valid }), 403, { message: "403 Forbidden" });
  await expectJson(await request.get("/api/v4/applications", { headers: asToken(user.token) }), 403, { message: "403 Forbidden" });
  await expectJson(await request.post("/api/v4/applications", { data: valid }), 401, { message: "401 Unauthorized" });

  const post = (data: Record<string, unknown>) => request.post("/api/v4/applications", { headers: asToken(rootToken), data });
  await expectJson(await post({ redirect_uri: callbackUrl, scopes: "api" }), 400, { error: "name is missing" });
  await expectJson(await post({ ...valid, redirect_uri: "javascript:alert(1)" }), 400, { message: { redirect_uri: ["is forbidden by the server."] } });
  await expectJson(await post({ ...valid, redirect_uri: "data:text/html,hi" }), 400, { message: { redirect_uri: ["is forbidden by the server."] } });
  await expectJson(await post({ ...valid, redirect_uri: `${callbackUrl}#frag` }), 400, { message: { redirect_uri: ["cannot contain a fragment."] } });
  await expectJson(await post({ ...valid, redirect_uri: "/relative" }), 400, { message: { redirect_uri: ["must be an absolute URI."] } });
  await expectJson(await post({ ...valid, scopes: "api bogus" }), 400, { message: { scopes: ["doesn't match those configured on the server."] } });

  const put = await request.put("/api/v4/applications/1", { headers: asToken(user.token), data: { trusted: true } });
  expect(put.status()).toBe(403);
});
