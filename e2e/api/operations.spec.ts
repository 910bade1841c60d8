import { expect, test, type APIResponse } from "@playwright/test";
import { asToken, createProject, createUser, expectJson, rootToken } from "../support/api";
import { bearer, createIntegration, receiverPath } from "../support/alerts";
import { hangUpMidBody } from "../support/http";

function expectSecurityHeaders(response: APIResponse, what: string) {
  const headers = response.headers();
  expect(headers["x-frame-options"], what).toBe("DENY");
  expect(headers["x-content-type-options"], what).toBe("nosniff");
  expect(headers["content-security-policy"], what).toContain("frame-ancestors 'none'");
}

test.describe("operations", () => {
  test("liveness, readiness and GitLab's plain health check", async ({ request }) => {
    await expectJson(await request.get("/-/liveness"), 200, { status: "ok" });
    await expectJson(await request.get("/-/readiness"), 200, { status: "ok", database: "ok" });
    const health = await request.get("/-/health");
    expect(health.status()).toBe(200);
    expect(health.headers()["content-type"]).toBe("text/plain; charset=utf-8");
    expect(await health.text()).toBe("GitLab OK");
  });

  test("metrics answer only addresses in the monitoring allowlist: this host by default, not a client a proxy forwards", async ({ request }) => {
    const forwarded = await request.get("/-/metrics", { headers: { "X-Forwarded-For": "203.0.113.9" } });
    expect(forwarded.status()).toBe(404);
    expect(await forwarded.text()).toBe("404 Not Found");
    const local = await request.get("/-/metrics", { headers: { "X-Forwarded-For": "127.0.0.1" } });
    expect(local.status()).toBe(200);
    expect(await local.text()).toContain("# TYPE http_requests_total counter");
  });

  test("metrics are Prometheus text and count API requests", async ({ request }) => {
    // Two instances of the same route pattern, so the counter has something to show.
    await request.get("/api/v4/user", { headers: asToken(rootToken) });
    await request.get("/api/v4/user");
    const response = await request.get("/-/metrics");
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain("# TYPE http_requests_total counter");
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/user",status="200"\} \d+$/m);
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/user",status="401"\} \d+$/m);
    expect(text).toContain("http_request_duration_seconds_bucket");
  });

  test("metrics count pages, server actions and static assets by route pattern, and API requests once", async ({ page, request }) => {
    const count = (text: string, labels: string) => {
      const series = `http_requests_total{${labels}} `;
      return Number(text.split("\n").find((line) => line.startsWith(series))?.slice(series.length) ?? 0);
    };
    const counts = async () => {
      const text = await (await request.get("/-/metrics")).text();
      return {
        page: count(text, 'method="GET",route="/users/password/new",status="200"'),
        action: count(text, 'method="POST",route="/users/password/new (action)",status="200"'),
        assets: count(text, 'method="GET",route="/_next/static",status="200"'),
        project: count(text, 'method="GET",route="/[namespace]/[project]",status="404"'),
        nestedProject: count(text, 'method="GET",route="/[namespace]/[project]/-/issues",status="404"'),
        unmatched: count(text, 'method="GET",route="(unmatched)",status="404"'),
        // A route no other spec asks for anonymously, so nothing else moves this count meanwhile.
        api: count(text, 'method="GET",route="/namespaces",status="401"'),
        apiByPath: text.split("\n").filter((line) => line.includes('route="/api/v4/')),
      };
    };
    const before = await counts();

    await page.goto("/users/password/new");
    await page.getByLabel("Email").fill(`nobody-${Date.now()}@example.com`);
    await page.getByRole("button", { name: "Reset password" }).click();
    await expect(page.getByRole("status")).toContainText("you will receive a password recovery link");
    // Labels are patterns, whatever the path names: a project that does not exist, one in a subgroup (which the
    // proxy rewrites to the project routes), and a path no route takes.
    expect((await request.get(`/nobody-${Date.now()}/nothing`)).status()).toBe(404);
    expect((await request.get(`/nobody-${Date.now()}/subgroup/nothing/-/issues`)).status()).toBe(404);
    expect((await request.get(`/nobody-${Date.now()}/nothing/-/no/such/page`)).status()).toBe(404);

    await expect
      .poll(async () => {
        const after = await counts();
        return {
          page: after.page > before.page,
          action: after.action > before.action,
          assets: after.assets > before.assets,
          project: after.project > before.project,
          nestedProject: after.nestedProject > before.nestedProject,
          unmatched: after.unmatched > before.unmatched,
        };
      })
      .toEqual({ page: true, action: true, assets: true, project: true, nestedProject: true, unmatched: true });

    // The API counts its own requests: once when the direct lane answers, once when the framework does (a request
    // with a cookie), and never a second time under the route file's path.
    const beforeApi = await counts();
    expect((await request.get("/api/v4/namespaces")).status()).toBe(401);
    expect((await request.get("/api/v4/namespaces", { headers: { Cookie: "theme=dark" } })).status()).toBe(401);
    await expect
      .poll(async () => {
        const after = await counts();
        return { api: after.api - beforeApi.api, apiByPath: after.apiByPath };
      })
      .toEqual({ api: 2, apiByPath: [] });
  });

  test("a sender that hangs up mid-body is counted as a closed request, never as a server error", async ({ request, baseURL }) => {
    const user = await createUser(request);
    const project = await createProject(request, user.token);
    const integration = await createIntegration(request, user.token, project.id);
    const senders = [
      { method: "POST", route: "/oauth/token", path: "/oauth/token", headers: { "Content-Type": "application/x-www-form-urlencoded" } },
      { method: "POST", route: "/projects", path: "/api/v4/projects", headers: { "Content-Type": "application/json", ...asToken(user.token) } },
      {
        method: "POST",
        route: "/:namespace/:project/alerts/notify",
        path: receiverPath(integration),
        headers: { "Content-Type": "application/json", ...bearer(integration.token) },
      },
    ];
    const counted = async () => {
      const text = await (await request.get("/-/metrics")).text();
      const count = (method: string, route: string, status: number) => {
        const series = `http_requests_total{method="${method}",route="${route}",status="${status}"} `;
        return Number(text.split("\n").find((line) => line.startsWith(series))?.slice(series.length) ?? 0);
      };
      return senders.map(({ method, route }) => ({ route, closed: count(method, route, 499), failed: count(method, route, 500) }));
    };
    const before = await counted();
    for (const sender of senders) await hangUpMidBody(baseURL!, sender.path, sender.headers);
    await expect.poll(counted).toEqual(before.map(({ route, closed, failed }) => ({ route, closed: closed + 1, failed })));
    // Counted by the wrappers alone, though the framework answered them where direct dispatch is off (the counts above
    // moved by one): never under the receiver's route file pattern either (API routes' and the OAuth endpoint's
    // patterns are labelled as their wrappers label them).
    const text = await (await request.get("/-/metrics")).text();
    const underRouteFiles = /^http_requests_total\{method="POST",route="\/\[namespace\]\/\[project\]\/alerts\/\[\.\.\.segments\]"/;
    expect(text.split("\n").filter((line) => underRouteFiles.test(line))).toEqual([]);
    expect(await counted()).toEqual(before.map(({ route, closed, failed }) => ({ route, closed: closed + 1, failed })));
  });

  test("security headers on pages, API answers and errors", async ({ request }) => {
    expectSecurityHeaders(await request.get("/"), "home page");
    expectSecurityHeaders(await request.get("/api/v4/user", { headers: asToken(rootToken) }), "API 200");
    expectSecurityHeaders(await request.get("/api/v4/user"), "API 401");
    expectSecurityHeaders(await request.get("/api/v4/nope"), "API route 404");
    expectSecurityHeaders(await request.get("/-/liveness"), "liveness");
  });

  test("every API response carries an X-Request-Id; a well-formed incoming one is kept", async ({ request }) => {
    const user = await createUser(request);
    const responses = [
      await request.get("/api/v4/user", { headers: asToken(user.token) }),
      await request.get("/api/v4/user"),
      await request.get("/api/v4/nope"),
      await request.post("/api/v4/projects", { headers: asToken(user.token), data: { visibility: "secret" } }),
      await request.get("/api/v4/projects/2147483647", { headers: asToken(user.token) }),
      await request.post("/api/v4/users", { headers: asToken(user.token), data: {} }),
    ];
    const ids = responses.map((response) => response.headers()["x-request-id"]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);

    const echoed = await request.get("/api/v4/user", { headers: { ...asToken(user.token), "X-Request-Id": "trace-abc.123:x" } });
    expect(echoed.headers()["x-request-id"]).toBe("trace-abc.123:x");
    const replaced = await request.get("/api/v4/user", { headers: { ...asToken(user.token), "X-Request-Id": "bad id with spaces" } });
    expect(replaced.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("API answers are JSON and never cached", async ({ request }) => {
    const response = await request.get("/api/v4/user", { headers: asToken(rootToken) });
    expect(response.headers()["content-type"]).toBe("application/json");
    expect(response.headers()["cache-control"]).toBe("no-store");
  });
});
