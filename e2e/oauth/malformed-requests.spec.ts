import { expect, test, type APIResponse } from "@playwright/test";
import { createUser } from "../support/api";
import { postUntilAnswered } from "../support/http";
import { basicAuth, callbackUrl, createApplication, signIn } from "../support/oauth";

async function expectInvalidRequest(response: APIResponse, description: string): Promise<void> {
  expect(response.status(), await response.text()).toBe(400);
  expect(response.headers()["content-type"]).toBe("application/json; charset=utf-8");
  expect(await response.json()).toEqual({ error: "invalid_request", error_description: description });
}

const nulInClientId = "Parameter client_id must not contain NUL characters.";

test.describe("NUL characters, which the database cannot store, are bad requests on every OAuth endpoint", () => {
  test("token, revocation, introspection and device authorization answer 400 invalid_request", async ({ request }) => {
    const app = await createApplication(request);
    const user = await createUser(request);
    const nulClient = `${app.application_id}\u0000`;
    await expectInvalidRequest(
      await request.post("/oauth/token", { form: { grant_type: "password", username: user.username, password: user.password, client_id: nulClient } }),
      nulInClientId,
    );
    await expectInvalidRequest(
      await request.post("/oauth/token", { form: { grant_type: "password", username: `${user.username}\u0000`, password: user.password } }),
      "Parameter username must not contain NUL characters.",
    );
    await expectInvalidRequest(
      await request.post("/oauth/token", {
        headers: { "Content-Type": "application/json" },
        data: Buffer.from(JSON.stringify({ grant_type: "refresh_token", refresh_token: "r", client_id: nulClient })),
      }),
      nulInClientId,
    );
    // Client credentials in HTTP Basic are parameters too.
    await expectInvalidRequest(
      await request.post("/oauth/token", {
        form: { grant_type: "password", username: user.username, password: user.password },
        headers: basicAuth(nulClient, app.secret),
      }),
      nulInClientId,
    );
    await expectInvalidRequest(await request.post("/oauth/revoke", { form: { token: "t", client_id: nulClient } }), nulInClientId);
    await expectInvalidRequest(await request.post("/oauth/introspect", { form: { token: "t", client_id: nulClient } }), nulInClientId);
    await expectInvalidRequest(await request.post("/oauth/authorize_device", { form: { client_id: nulClient } }), nulInClientId);

    // The person's password still works: nothing about them changed.
    expect((await request.post("/oauth/token", { form: { grant_type: "password", username: user.username, password: user.password } })).status()).toBe(200);
  });

  test("authorize and the consent page show an error page, signed in or not", async ({ request }) => {
    const app = await createApplication(request);
    const user = await createUser(request);
    const query = `client_id=${app.application_id}%00&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code&state=s`;
    const inState = `client_id=${app.application_id}&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code&state=a%00b`;
    const expectPage = async (path: string, description: string) => {
      const response = await request.get(path, { maxRedirects: 0 });
      expect(response.status()).toBe(400);
      expect(response.headers()["location"]).toBeUndefined();
      expect(response.headers()["content-type"]).toBe("text/html; charset=utf-8");
      expect(await response.text()).toContain(`invalid_request: ${description}`);
    };
    await expectPage(`/oauth/authorize?${query}`, nulInClientId);
    await expectPage(`/oauth/authorize?${inState}`, "Parameter state must not contain NUL characters.");
    await signIn(request, user.username, user.password);
    await expectPage(`/oauth/authorize?${query}`, nulInClientId);
    await expectPage(`/oauth/authorize?${inState}`, "Parameter state must not contain NUL characters.");
    const consent = await request.get(`/oauth/authorize/consent?${query}`, { maxRedirects: 0 });
    expect(consent.status()).toBe(200);
    expect(await consent.text()).toContain(nulInClientId);
  });

  test("token info and userinfo treat a token with NUL like any other unknown token", async ({ request }) => {
    const invalidToken = { error: "invalid_token", error_description: "The access token is invalid", state: "unauthorized" };
    for (const path of ["/oauth/token/info?access_token=a%00b", "/oauth/userinfo?access_token=a%00b"]) {
      const response = await request.get(path);
      expect(response.status()).toBe(401);
      expect(await response.json()).toEqual(invalidToken);
    }
  });
});

test.describe("request bodies are read under their limit, never whole", () => {
  test("a chunked token request that goes on and on is refused once it passes the limit", async ({ baseURL }) => {
    const answer = await postUntilAnswered(baseURL!, "/oauth/token", { "Content-Type": "application/x-www-form-urlencoded" });
    expect(answer.answeredBeforeEnd).toBe(true);
    expect(answer.bytesSent).toBeLessThan(16 * 1024 * 1024);
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(answer.body)).toEqual({ error: "invalid_request", error_description: "The request body is too large." });
  });

  test("an anonymous consent decision is refused before its body is read", async ({ baseURL }) => {
    const answer = await postUntilAnswered(baseURL!, "/oauth/authorize/decision", { "Content-Type": "application/x-www-form-urlencoded" });
    expect(answer.answeredBeforeEnd).toBe(true);
    expect(answer.status).toBe(403);
    expect(answer.headers["location"]).toBeUndefined();
    expect(answer.body).toContain("The authorization form expired or did not come from this site.");
  });

  test("a signed-in consent decision larger than the limit is refused as a bad request", async ({ request, baseURL }) => {
    const user = await createUser(request);
    await signIn(request, user.username, user.password);
    const cookie = (await request.storageState()).cookies.map((item) => `${item.name}=${item.value}`).join("; ");
    const answer = await postUntilAnswered(baseURL!, "/oauth/authorize/decision", { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie });
    expect(answer.answeredBeforeEnd).toBe(true);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain("invalid_request: The request body is too large.");
  });
});
