import { expect, test, type APIResponse } from "@playwright/test";
import { createUser } from "../support/api";
import { approveOnConsentPage, callbackUrl, createApplication, signIn } from "../support/oauth";

async function expectErrorPage(response: APIResponse, text: string): Promise<void> {
  expect(response.status()).toBe(400);
  expect(response.headers()["location"]).toBeUndefined();
  expect(response.headers()["content-type"]).toBe("text/html; charset=utf-8");
  const html = await response.text();
  expect(html).toContain("An error has occurred");
  expect(html).toContain(text);
}

test.describe("/oauth/authorize checks who is asking before it answers for the client", () => {
  test("an anonymous visitor is sent to sign in, never to the client, whatever else is wrong with the request", async ({ request }) => {
    const app = await createApplication(request);
    const publicApp = await createApplication(request, { confidential: false });
    // Each of these goes back to the client with an error once someone has signed in; a registered redirect URI must
    // not turn them into a way to bounce anonymous visitors to wherever an application's owner likes.
    for (const query of [
      `client_id=${app.application_id}&response_type=bogus`,
      `client_id=${app.application_id}&response_type=code&scope=sudo`,
      `client_id=${app.application_id}&scope=api`,
      `client_id=${app.application_id}&response_type=code&code_challenge=short&code_challenge_method=S512`,
      `client_id=${publicApp.application_id}&response_type=code`,
    ]) {
      const path = `/oauth/authorize?${query}&redirect_uri=${encodeURIComponent(callbackUrl)}&state=st`;
      const response = await request.get(path, { maxRedirects: 0 });
      expect(response.status(), query).toBe(302);
      expect(response.headers()["location"], query).toBe(`/users/sign_in?callbackUrl=${encodeURIComponent(path)}`);
    }
  });

  test("what cannot be trusted is an error page for everybody: unknown client, unregistered redirect URI, repeated parameters", async ({
    request,
  }) => {
    const app = await createApplication(request);
    const user = await createUser(request);
    const redirect = encodeURIComponent(callbackUrl);
    const cases: [string, string][] = [
      [`client_id=unknown&redirect_uri=${redirect}&response_type=bogus`, "invalid_client"],
      [`client_id=${app.application_id}&redirect_uri=${encodeURIComponent("https://evil.example.com/cb")}&scope=sudo`, "invalid_redirect_uri"],
      [`client_id=${app.application_id}&redirect_uri=${redirect}&response_type=code&scope=api&scope=sudo`, "Parameter scope was given more than once."],
    ];
    for (const [query, text] of cases) await expectErrorPage(await request.get(`/oauth/authorize?${query}`, { maxRedirects: 0 }), text);
    await signIn(request, user.username, user.password);
    for (const [query, text] of cases) await expectErrorPage(await request.get(`/oauth/authorize?${query}`, { maxRedirects: 0 }), text);
  });

  test("the consent page checks in the same order: error page, then sign-in, and never the client for nobody", async ({ request }) => {
    const app = await createApplication(request);
    const unknown = await request.get(`/oauth/authorize/consent?client_id=unknown&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code`, {
      maxRedirects: 0,
    });
    expect(unknown.status()).toBe(200);
    expect(unknown.headers()["location"]).toBeUndefined();
    expect(await unknown.text()).toContain("invalid_client");

    const query = `client_id=${app.application_id}&redirect_uri=${encodeURIComponent(callbackUrl)}&response_type=code&scope=sudo&state=st`;
    const badScope = await request.get(`/oauth/authorize/consent?${query}`, { maxRedirects: 0 });
    expect([302, 303, 307]).toContain(badScope.status());
    expect(badScope.headers()["location"]).toBe(`/users/sign_in?callbackUrl=${encodeURIComponent(`/oauth/authorize/consent?${query}`)}`);
  });

  test("a person whose email address is not confirmed gets an error page, not consent, even for a trusted application", async ({ request }) => {
    const app = await createApplication(request);
    const trusted = await createApplication(request, { trusted: true });
    const user = await createUser(request, { confirmed: false });
    await signIn(request, user.username, user.password);
    const verify = "Verify the email address in your account profile before you sign in.";
    for (const clientId of [app.application_id, trusted.application_id]) {
      const query = new URLSearchParams({ client_id: clientId, redirect_uri: callbackUrl, response_type: "code", scope: "api", state: "u" });
      await expectErrorPage(await request.get(`/oauth/authorize?${query}`, { maxRedirects: 0 }), verify);
      // A bad request does not reach the client through an unconfirmed account either.
      const badScope = new URLSearchParams({ ...Object.fromEntries(query), scope: "sudo" });
      await expectErrorPage(await request.get(`/oauth/authorize?${badScope}`, { maxRedirects: 0 }), verify);
      const consent = await request.get(`/oauth/authorize/consent?${query}`, { maxRedirects: 0 });
      expect(consent.status()).toBe(200);
      const html = await consent.text();
      expect(html).toContain(verify);
      expect(html).not.toContain("authenticity_token");
    }
    // Nothing was authorized, not even the trusted application.
    const profile = await request.get("/profile/applications");
    expect(profile.status()).toBe(200);
    expect(await profile.text()).toContain("Authorized applications (<!-- -->0<!-- -->)");
  });

  test("remembered consent lets a confidential client through, never a public one", async ({ request }) => {
    const confidential = await createApplication(request, { scopes: "read_user" });
    const publicApp = await createApplication(request, { scopes: "read_user", confidential: false });
    const user = await createUser(request);
    await signIn(request, user.username, user.password);
    const pkce = { code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" };
    const queryFor = (clientId: string, state: string) =>
      new URLSearchParams({ client_id: clientId, redirect_uri: callbackUrl, response_type: "code", scope: "read_user", state, ...pkce });

    // Both approved once, through the consent form.
    for (const app of [confidential, publicApp]) {
      const location = new URL(await approveOnConsentPage(request, queryFor(app.application_id, "first")));
      expect(`${location.origin}${location.pathname}`).toBe(callbackUrl);
      expect(location.searchParams.get("code")).toMatch(/^[0-9a-f]{64}$/);
    }

    // The confidential client, which proves who it is with its secret, is let through on the remembered approval.
    const again = await request.get(`/oauth/authorize?${queryFor(confidential.application_id, "second")}`, { maxRedirects: 0 });
    expect(again.status()).toBe(302);
    const location = new URL(again.headers()["location"]!);
    expect(`${location.origin}${location.pathname}`).toBe(callbackUrl);
    expect(location.searchParams.get("code")).toMatch(/^[0-9a-f]{64}$/);
    expect(location.searchParams.get("state")).toBe("second");

    // Anyone can send the public client's client_id: the person is asked again, every time.
    const publicQuery = queryFor(publicApp.application_id, "second");
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const asked = await request.get(`/oauth/authorize?${publicQuery}`, { maxRedirects: 0 });
      expect(asked.status()).toBe(302);
      expect(asked.headers()["location"]).toBe(`/oauth/authorize/consent?${publicQuery}`);
    }
  });
});
