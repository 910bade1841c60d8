import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { asToken, createUser, rootToken, uniqueName } from "../support/api";
import { serverLogFile } from "../support/constants";

/**
 * Exercises every place a secret crosses the server (personal access tokens, client secrets, passwords, access and
 * refresh tokens, codes of failed requests), then reads the server's own output: none of them may appear in it.
 */
test("tokens, secrets and passwords never reach the server log", async ({ request }, testInfo) => {
  const user = await createUser(request);
  const created = await request.post("/api/v4/applications", {
    headers: asToken(rootToken),
    data: { name: uniqueName("logs"), redirect_uri: "http://localhost/callback", scopes: "api openid", confidential: true },
  });
  expect(created.status()).toBe(201);
  const application = (await created.json()) as { application_id: string; secret: string };

  const grant = await request.post("/oauth/token", {
    form: {
      grant_type: "password",
      username: user.username,
      password: user.password,
      scope: "api openid",
      client_id: application.application_id,
      client_secret: application.secret,
    },
  });
  expect(grant.status()).toBe(200);
  const tokens = (await grant.json()) as { access_token: string; refresh_token: string; id_token: string };
  const refreshed = await request.post("/oauth/token", {
    form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: application.application_id, client_secret: application.secret },
  });
  expect(refreshed.status()).toBe(200);
  const rotated = (await refreshed.json()) as { access_token: string; refresh_token: string };

  expect((await request.get("/api/v4/user", { headers: { Authorization: `Bearer ${rotated.access_token}` } })).status()).toBe(200);
  expect((await request.get(`/oauth/token/info?access_token=${rotated.access_token}`)).status()).toBe(200);
  expect((await request.get("/api/v4/user", { headers: asToken(user.token) })).status()).toBe(200);
  // Failures log too: a reused refresh token, a wrong password, a wrong client secret.
  expect((await request.post("/oauth/token", { form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: application.application_id, client_secret: application.secret } })).status()).toBe(400);
  expect((await request.post("/oauth/token", { form: { grant_type: "password", username: user.username, password: `${user.password}-wrong` } })).status()).toBe(400);
  expect((await request.post("/oauth/token", { form: { grant_type: "password", username: user.username, password: user.password, client_id: application.application_id, client_secret: `${application.secret}x` } })).status()).toBe(401);

  await new Promise((resolve) => setTimeout(resolve, 1000));
  const log = readFileSync(serverLogFile(testInfo.project.name), "utf8");
  expect(log).toContain('"route":"/oauth/token"');
  for (const secret of [
    user.token,
    user.password,
    application.secret,
    tokens.access_token,
    tokens.refresh_token,
    tokens.id_token,
    rotated.access_token,
    rotated.refresh_token,
  ]) {
    expect(log.includes(secret), `the server log contains a secret (${secret.slice(0, 6)}…)`).toBe(false);
  }
});
