import { expect, test, type APIResponse } from "@playwright/test";
import { createUser } from "../support/api";
import { postUntilAnswered } from "../support/http";
import { basicAuth, callbackUrl, createApplication, freshClientAddress, passwordToken, signIn } from "../support/oauth";

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

  test("dynamic registration refuses NUL characters in what it stores with invalid_client_metadata", async ({ request }) => {
    const register = (data: Record<string, unknown>) =>
      request.post("/oauth/register", { headers: { ...freshClientAddress(), "Content-Type": "application/json" }, data: Buffer.from(JSON.stringify(data)) });
    const named = await register({ client_name: "Agent\u0000", redirect_uris: [callbackUrl] });
    expect(named.status()).toBe(400);
    expect(await named.json()).toEqual({ error: "invalid_client_metadata", error_description: "client_name must not contain NUL characters" });
    const redirected = await register({ client_name: "Agent", redirect_uris: [`${callbackUrl}\u0000`] });
    expect(redirected.status()).toBe(400);
    expect(await redirected.json()).toEqual({ error: "invalid_client_metadata", error_description: "Redirect URI must be a valid URI." });
    // A form-encoded body is not the JSON object RFC 7591 asks for.
    const form = await request.post("/oauth/register", { headers: freshClientAddress(), form: { client_name: "Agent", redirect_uris: callbackUrl } });
    expect(form.status()).toBe(400);
    expect(await form.json()).toEqual({ error: "invalid_client_metadata", error_description: "The request body is not valid JSON." });
  });

  test("a resource or a metadata-document client_id with NUL is an error page on authorize", async ({ request }) => {
    const app = await createApplication(request);
    const user = await createUser(request);
    await signIn(request, user.username, user.password);
    for (const [query, description] of [
      [`client_id=${app.application_id}&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code&resource=https://rs.example/%00`, "Parameter resource must not contain NUL characters."],
      [`client_id=${encodeURIComponent("https://client.example/meta\u0000.json")}&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code`, nulInClientId],
    ]) {
      const response = await request.get(`/oauth/authorize?${query}`, { maxRedirects: 0 });
      expect(response.status()).toBe(400);
      expect(response.headers()["location"]).toBeUndefined();
      expect(await response.text()).toContain(`invalid_request: ${description}`);
    }
    // A resource that is not an absolute URI goes back to the (verified) client as invalid_target.
    const relative = await request.get(
      `/oauth/authorize?client_id=${app.application_id}&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code&state=s&resource=relative`,
      { maxRedirects: 0 },
    );
    expect(relative.status()).toBe(302);
    const location = new URL(relative.headers()["location"]!);
    expect(location.searchParams.get("error")).toBe("invalid_target");
    expect(location.searchParams.get("error_description")).toBe("The resource must be an absolute URI.");
  });

  test("the token endpoint answers a malformed resource with invalid_target", async ({ request }) => {
    const user = await createUser(request);
    const response = await request.post("/oauth/token", {
      form: { grant_type: "refresh_token", refresh_token: "unknown", resource: "https://rs.example/#f" },
    });
    // An unknown refresh token is refused before its resource is looked at.
    expect(response.status()).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_grant" });
    const tokens = await passwordToken(request, user);
    const refreshed = await request.post("/oauth/token", {
      form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token, resource: "https://rs.example/#f" },
    });
    expect(refreshed.status()).toBe(400);
    expect(await refreshed.json()).toEqual({ error: "invalid_target", error_description: "The resource must not contain a fragment." });
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
