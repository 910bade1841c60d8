import { randomBytes } from "node:crypto";
import { expect, test, type APIResponse } from "@playwright/test";
import { asToken, createProject, createUser } from "../support/api";
import { submitSignIn } from "../support/browser";
import { tightThrottles } from "../support/constants";
import { requestFrom } from "../support/http";
import { basicAuth, createApplication } from "../support/oauth";

/**
 * Brute force and floods against the production server, with the small limits of its throttle server. Requests come
 * from loopback, a trusted proxy, so each test plays clients of its own through `X-Forwarded-For`.
 */
function newAddress(): string {
  return `2001:db8::${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;
}

const limit = (name: keyof typeof tightThrottles) => Number(tightThrottles[name]);

/** GitLab's rate-limit headers on a 429, with the throttle's name and limit. */
function expectThrottled(response: APIResponse, name: string, limitValue: number): void {
  expect(response.status()).toBe(429);
  const headers = response.headers();
  const retryAfter = Number(headers["retry-after"]);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(headers["ratelimit-name"]).toBe(name);
  expect(headers["ratelimit-limit"]).toBe(String(limitValue));
  expect(headers["ratelimit-remaining"]).toBe("0");
  const reset = Number(headers["ratelimit-reset"]);
  expect(Math.abs(reset - (Math.floor(Date.now() / 1000) + retryAfter))).toBeLessThanOrEqual(2);
  expect(new Date(headers["ratelimit-resettime"]!).getTime()).toBe(reset * 1000);
}

test("anonymous API requests are limited per address; credentials that fail count as anonymous", async ({ request }) => {
  const flooder = { "X-Forwarded-For": newAddress() };
  for (let call = 0; call < limit("THROTTLE_UNAUTHENTICATED_API_PER_IP"); call++) {
    expect((await request.get("/api/v4/projects", { headers: flooder })).status()).toBe(200);
  }
  const refused = await request.get("/api/v4/projects", { headers: flooder });
  expectThrottled(refused, "throttle_unauthenticated_api", limit("THROTTLE_UNAUTHENTICATED_API_PER_IP"));
  expect(refused.headers()["ratelimit-observed"]).toBe(String(limit("THROTTLE_UNAUTHENTICATED_API_PER_IP") + 1));
  expect(refused.headers()["content-type"]).toBe("application/json");
  expect(await refused.json()).toEqual({ message: "Retry later" });
  // Someone else is not affected.
  expect((await request.get("/api/v4/projects", { headers: { "X-Forwarded-For": newAddress() } })).status()).toBe(200);

  // Guessing tokens: each wrong one is a 401 and counts, until the address is refused.
  const guesser = { "X-Forwarded-For": newAddress() };
  for (let call = 0; call < limit("THROTTLE_UNAUTHENTICATED_API_PER_IP"); call++) {
    const guess = await request.get("/api/v4/user", { headers: { ...guesser, ...asToken(`glpat-${randomBytes(10).toString("hex")}`) } });
    expect(guess.status()).toBe(401);
  }
  const refusedGuess = await request.get("/api/v4/user", { headers: { ...guesser, ...asToken("glpat-another-guess") } });
  expectThrottled(refusedGuess, "throttle_unauthenticated_api", limit("THROTTLE_UNAUTHENTICATED_API_PER_IP"));
});

test("authenticated API requests are limited per user, from whatever address", async ({ request }) => {
  const user = await createUser(request);
  for (let call = 0; call < limit("THROTTLE_AUTHENTICATED_API_PER_USER"); call++) {
    const response = await request.get("/api/v4/user", { headers: { ...asToken(user.token), "X-Forwarded-For": newAddress() } });
    expect(response.status()).toBe(200);
  }
  const refused = await request.get("/api/v4/user", { headers: { ...asToken(user.token), "X-Forwarded-For": newAddress() } });
  expectThrottled(refused, "throttle_authenticated_api", limit("THROTTLE_AUTHENTICATED_API_PER_USER"));
  expect(await refused.json()).toEqual({ message: "Retry later" });
});

test("password guessing through the password grant: an address is refused after its failures, even with the right password", async ({
  request,
}) => {
  const victim = await createUser(request);
  const attacker = { "X-Forwarded-For": newAddress() };
  const grant = (password: string, headers: Record<string, string>) =>
    request.post("/oauth/token", { headers, form: { grant_type: "password", username: victim.username, password } });
  for (let attempt = 0; attempt < limit("THROTTLE_FAILED_SIGN_INS_PER_IP"); attempt++) {
    const failed = await grant(`guess-${attempt}`, attacker);
    expect(failed.status()).toBe(400);
    expect((await failed.json()).error).toBe("invalid_grant");
  }
  const refused = await grant(victim.password, attacker);
  expectThrottled(refused, "throttle_failed_sign_ins", limit("THROTTLE_FAILED_SIGN_INS_PER_IP"));
  expect(refused.headers()["content-type"]).toBe("application/json; charset=utf-8");
  expect(await refused.json()).toEqual({
    error: "temporarily_unavailable",
    error_description: `Too many requests. Retry after ${refused.headers()["retry-after"]} seconds.`,
  });
  // The owner, elsewhere, still gets a token.
  const owner = await grant(victim.password, { "X-Forwarded-For": newAddress() });
  expect(owner.status(), await owner.text()).toBe(200);
});

test("a client connected directly is counted under its own address, loopback included, on both lanes of the server", async ({ baseURL }) => {
  // Requests with a cookie are left to the framework; those without are answered by the direct lane.
  const lanes: { name: string; headers: Record<string, string> }[] = [
    { name: "direct", headers: {} },
    { name: "framework", headers: { Cookie: "lane=framework" } },
  ];
  for (const lane of lanes) {
    const client = `127.${1 + randomBytes(1)[0]! % 250}.${randomBytes(1)[0]}.${1 + randomBytes(1)[0]! % 250}`;
    const login = `nobody_${randomBytes(4).toString("hex")}`;
    const grant = (attempt: number) =>
      requestFrom(baseURL!, client, "/oauth/token", {
        method: "POST",
        // Whatever a client puts in the server's own peer-address header is replaced by the socket's address.
        headers: { ...lane.headers, "Content-Type": "application/x-www-form-urlencoded", "X-Peer-Address": newAddress() },
        body: new URLSearchParams({ grant_type: "password", username: login, password: `guess-${attempt}` }).toString(),
      });
    for (let attempt = 0; attempt < limit("THROTTLE_FAILED_SIGN_INS_PER_IP"); attempt++) {
      const failed = await grant(attempt);
      expect(failed.status, `${lane.name} lane: ${failed.body}`).toBe(400);
      expect(JSON.parse(failed.body).error).toBe("invalid_grant");
    }
    const refused = await grant(limit("THROTTLE_FAILED_SIGN_INS_PER_IP"));
    expect(refused.status, `${lane.name} lane: ${refused.body}`).toBe(429);
    expect(refused.headers["ratelimit-name"]).toBe("throttle_failed_sign_ins");
    expect(JSON.parse(refused.body).error).toBe("temporarily_unavailable");
  }
});

test("the sign-in form answers 429 to an address over its failures and says why", async ({ browser, request }) => {
  const user = await createUser(request);
  const attacker = await browser.newContext({ extraHTTPHeaders: { "X-Forwarded-For": newAddress() } });
  const page = await attacker.newPage();
  await page.goto("/users/sign_in");
  for (let attempt = 0; attempt < limit("THROTTLE_FAILED_SIGN_INS_PER_IP"); attempt++) {
    await submitSignIn(page, user.username, `guess-${attempt}`);
    await expect(page.getByText("Invalid login or password.")).toBeVisible();
  }
  const [answer] = await Promise.all([
    page.waitForResponse((response) => response.url().includes("/api/auth/callback/credentials")),
    (async () => {
      await page.getByLabel("Password", { exact: true }).fill(user.password);
      await page.getByRole("button", { name: "Sign in" }).click();
    })(),
  ]);
  expect(answer.status()).toBe(429);
  expect(Number(answer.headers()["retry-after"])).toBeGreaterThanOrEqual(1);
  expect(answer.headers()["ratelimit-name"]).toBe("throttle_failed_sign_ins");
  await expect(page.getByText("Too many failed sign-in attempts from your network. Wait a minute and try again.")).toBeVisible();
  await expect(page).toHaveURL(/\/users\/sign_in/);
  await attacker.close();

  // From another address the same account signs in.
  const owner = await browser.newContext({ extraHTTPHeaders: { "X-Forwarded-For": newAddress() } });
  const ownerPage = await owner.newPage();
  await ownerPage.goto("/users/sign_in");
  await submitSignIn(ownerPage, user.username, user.password);
  await expect(ownerPage).toHaveURL(/\/projects$/);
  await owner.close();
});

test("/oauth/token is limited per client", async ({ request }) => {
  const application = await createApplication(request);
  const exchange = (clientId: string) =>
    request.post("/oauth/token", {
      headers: { "X-Forwarded-For": newAddress() },
      form: { grant_type: "authorization_code", code: "not-a-code", redirect_uri: "http://127.0.0.1:9/callback", client_id: clientId, client_secret: application.secret },
    });
  for (let call = 0; call < limit("THROTTLE_OAUTH_TOKEN_PER_CLIENT"); call++) {
    const answer = await exchange(application.application_id);
    expect(answer.status()).toBe(400);
    expect((await answer.json()).error).toBe("invalid_grant");
  }
  const refused = await exchange(application.application_id);
  expectThrottled(refused, "throttle_oauth_token", limit("THROTTLE_OAUTH_TOKEN_PER_CLIENT"));
  expect((await refused.json()).error).toBe("temporarily_unavailable");
  // Another client has its own budget.
  const other = await exchange(`unknown-${randomBytes(4).toString("hex")}`);
  expect(other.status()).toBe(401);
});

test("/oauth/token counts client credentials exchanges per client too, with the secret in HTTP Basic or in the body", async ({ request }) => {
  const application = await createApplication(request);
  const exchange = (viaBasic: boolean) =>
    request.post("/oauth/token", {
      headers: { "X-Forwarded-For": newAddress(), ...(viaBasic ? basicAuth(application.application_id, application.secret) : {}) },
      form: {
        grant_type: "client_credentials",
        ...(viaBasic ? {} : { client_id: application.application_id, client_secret: application.secret }),
      },
    });
  for (let call = 0; call < limit("THROTTLE_OAUTH_TOKEN_PER_CLIENT"); call++) {
    const answer = await exchange(call % 2 === 0);
    expect(answer.status(), await answer.text()).toBe(200);
  }
  for (const viaBasic of [true, false]) {
    const refused = await exchange(viaBasic);
    expectThrottled(refused, "throttle_oauth_token", limit("THROTTLE_OAUTH_TOKEN_PER_CLIENT"));
    expect((await refused.json()).error).toBe("temporarily_unavailable");
  }
});

test("device-flow user codes cannot be guessed: after three wrong codes even the right one is refused", async ({ browser, request }) => {
  const application = await createApplication(request);
  const started = await request.post("/oauth/authorize_device", {
    form: { client_id: application.application_id, client_secret: application.secret, scope: "api" },
  });
  expect(started.status(), await started.text()).toBe(200);
  const { user_code: userCode } = (await started.json()) as { user_code: string };
  const user = await createUser(request);

  const context = await browser.newContext({ extraHTTPHeaders: { "X-Forwarded-For": newAddress() } });
  const page = await context.newPage();
  await page.goto("/users/sign_in");
  await submitSignIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/projects$/);
  for (let attempt = 0; attempt < limit("THROTTLE_DEVICE_CODE_ATTEMPTS"); attempt++) {
    await page.goto(`/oauth/device?user_code=BBBB-BBB${"CDF"[attempt]}`);
    await expect(page.getByText("The user code is invalid or expired")).toBeVisible();
  }
  await page.goto(`/oauth/device?user_code=${userCode}`);
  await expect(page.getByText(/^Too many wrong codes\. Try again in \d+ seconds\.$/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Authorize" })).toHaveCount(0);
  await context.close();
});

test("the forms that mail links (password reset, confirmation, sign-up) are limited per address, and say so", async ({ browser }) => {
  const context = await browser.newContext({ extraHTTPHeaders: { "X-Forwarded-For": newAddress() } });
  const page = await context.newPage();
  const sent =
    "If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes.";
  await page.goto("/users/password/new");
  for (let request = 0; request < limit("THROTTLE_PROTECTED_PATHS_PER_IP"); request++) {
    await page.getByLabel("Email").fill(`someone-${request}@example.com`);
    await page.getByRole("button", { name: "Reset password" }).click();
    await expect(page.getByText(sent)).toBeVisible();
  }
  await page.getByLabel("Email").fill("someone-else@example.com");
  await page.getByRole("button", { name: "Reset password" }).click();
  await expect(page.getByText(/^Too many attempts\. Try again in \d+ seconds\.$/)).toBeVisible();
  // The same budget covers asking for a new confirmation link.
  await page.goto("/users/confirmation/new");
  await page.getByLabel("Email").fill("someone@example.com");
  await page.getByRole("button", { name: "Resend" }).click();
  await expect(page.getByText(/^Too many attempts\. Try again in \d+ seconds\.$/)).toBeVisible();
  // And signing up, which mails a confirmation link: no account is made.
  const username = `user_${randomBytes(4).toString("hex")}`;
  await page.goto("/users/sign_up");
  await page.getByLabel("Name", { exact: true }).fill("Flood Person");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Email").fill(`${username}@example.com`);
  await page.getByLabel("Password", { exact: true }).fill("a long enough password");
  await page.getByLabel("Password confirmation").fill("a long enough password");
  await page.getByRole("button", { name: "Register" }).click();
  await expect(page.getByText(/^Too many attempts\. Try again in \d+ seconds\.$/)).toBeVisible();
  await expect(page).toHaveURL(/\/users\/sign_up$/);
  expect(await (await page.request.get(`/api/v4/users?username=${username}`, { headers: { "X-Forwarded-For": newAddress() } })).json()).toEqual([]);
  await context.close();
});

test("tests of one hook by one person are limited to five a minute, as GitLab's web_hook_test", async ({ request }) => {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const hookOf = async () => {
    const created = await request.post(`/api/v4/projects/${project.id}/hooks`, { headers: asToken(owner.token), data: { url: "https://example.com/hook" } });
    expect(created.status()).toBe(201);
    return ((await created.json()) as { id: number }).id;
  };
  const hook = await hookOf();
  const testOf = (hookId: number) => request.post(`/api/v4/projects/${project.id}/hooks/${hookId}/test/milestone_events`, { headers: asToken(owner.token) });
  for (let test = 0; test < 5; test++) {
    // The project has no milestones: each test is refused as GitLab does, and counted all the same.
    const refused = await testOf(hook);
    expect(refused.status()).toBe(422);
    expect(await refused.json()).toEqual({ message: "Ensure the project has milestones." });
  }
  const limited = await testOf(hook);
  expect(limited.status()).toBe(429);
  expect(Number(limited.headers()["retry-after"])).toBeGreaterThanOrEqual(1);
  expect(await limited.json()).toEqual({ message: { error: "This endpoint has been requested too many times. Try again later." } });
  // Another hook of the same project has a count of its own.
  expect((await testOf(await hookOf())).status()).toBe(422);
});
