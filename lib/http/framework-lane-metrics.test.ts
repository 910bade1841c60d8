import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { frameworkLaneMetrics, routeLabel } from "./framework-lane-metrics.mjs";
import { markObservedByWrapper, type RequestMetrics } from "./metrics-registry.mjs";
import { routeTable } from "./route-table.mjs";

const manifest = {
  "/page": "app/page.js",
  "/_not-found/page": "app/_not-found/page.js",
  "/[namespace]/page": "app/[namespace]/page.js",
  "/[namespace]/[project]/page": "app/[namespace]/[project]/page.js",
  "/[namespace]/[project]/-/issues/page": "app/[namespace]/[project]/-/issues/page.js",
  "/[namespace]/[project]/-/issues/[iid]/page": "app/[namespace]/[project]/-/issues/[iid]/page.js",
  "/[namespace]/[project]/alerts/[...segments]/route": "app/[namespace]/[project]/alerts/[...segments]/route.js",
  "/(auth)/users/sign_in/page": "app/(auth)/users/sign_in/page.js",
  "/projects/page": "app/projects/page.js",
  "/api/v4/[...path]/route": "app/api/v4/[...path]/route.js",
  "/api/v4/user/route": "app/api/v4/user/route.js",
  "/api/v4/projects/[id]/route": "app/api/v4/projects/[id]/route.js",
  "/-/liveness/route": "app/-/liveness/route.js",
  "/-/feeds/users/[username]/route": "app/-/feeds/users/[username]/route.js",
};
const table = routeTable(manifest, { pages: true });

describe("the route labels of the framework lane's metrics", () => {
  it("labels pages and route handlers by their folders' pattern, never by the path", () => {
    expect(routeLabel(table, "GET", "/", undefined)).toBe("/");
    expect(routeLabel(table, "GET", "/acme", undefined)).toBe("/[namespace]");
    expect(routeLabel(table, "GET", "/acme/api", undefined)).toBe("/[namespace]/[project]");
    expect(routeLabel(table, "GET", "/acme/api/-/issues?state=closed&page=2", undefined)).toBe("/[namespace]/[project]/-/issues");
    expect(routeLabel(table, "HEAD", "/acme/api/-/issues/12", undefined)).toBe("/[namespace]/[project]/-/issues/[iid]");
    expect(routeLabel(table, "GET", "/users/sign_in", undefined)).toBe("/users/sign_in");
    expect(routeLabel(table, "GET", "/-/feeds/users/jane?feed_token=secret", undefined)).toBe("/-/feeds/users/[username]");
    expect(routeLabel(table, "GET", "/-/liveness", undefined)).toBe("/-/liveness");
    expect(routeLabel(table, "POST", "/acme/api/alerts/notify/prometheus/1.json", undefined)).toBe("/[namespace]/[project]/alerts/[...segments]");
  });

  it("prefers a static segment to a dynamic one, as the framework does", () => {
    expect(routeLabel(table, "GET", "/projects", undefined)).toBe("/projects");
    expect(routeLabel(table, "GET", "/api/v4/user", undefined)).toBe("/user");
  });

  it("labels an API route as the API's wrapper labels it, for the requests no wrapper answered", () => {
    expect(routeLabel(table, "GET", "/api/v4/projects/%E0%A4%A", undefined)).toBe("/projects/:id");
    expect(routeLabel(table, "GET", "/api/v4/projects/1/nothing", undefined)).toBe("/*");
  });

  it("labels a server action by its page's pattern with a suffix, and only a POST carrying Next-Action", () => {
    expect(routeLabel(table, "POST", "/acme/api/-/issues", "7f3a9c")).toBe("/[namespace]/[project]/-/issues (action)");
    expect(routeLabel(table, "POST", "/", "7f3a9c")).toBe("/ (action)");
    expect(routeLabel(table, "POST", "/acme/api/-/issues", undefined)).toBe("/[namespace]/[project]/-/issues");
    expect(routeLabel(table, "GET", "/acme/api/-/issues", "7f3a9c")).toBe("/[namespace]/[project]/-/issues");
    expect(routeLabel(table, "POST", "/nowhere/at/all/really", "7f3a9c")).toBe("(unmatched)");
  });

  it("gives every static asset one label, and every path no route takes another", () => {
    expect(routeLabel(table, "GET", "/_next/static/chunks/app/page-0123abcd.js", undefined)).toBe("/_next/static");
    expect(routeLabel(table, "GET", "/_next/static/media/font.woff2?v=1", undefined)).toBe("/_next/static");
    for (const url of ["/acme/api/-/nothing", "/a/b/c/d/e/f", "/acme/api/-/issues/", "//acme", "/acme/../etc", "/_next/image?url=x", "*", ""]) {
      expect(routeLabel(table, "GET", url, undefined), url).toBe("(unmatched)");
    }
  });
});

/** A fresh registry, so that each test reads only what it counted. */
function freshMetrics(): RequestMetrics {
  const registry = new Registry();
  return {
    registry,
    httpRequests: new Counter({ name: "http_requests_total", help: "-", labelNames: ["method", "route", "status"], registers: [registry] }),
    httpRequestDuration: new Histogram({ name: "http_request_duration_seconds", help: "-", labelNames: ["method", "route"], registers: [registry] }),
  };
}

function exchange(method: string, url: string, headers: Record<string, string> = {}) {
  const request = Object.assign(new EventEmitter(), { method, url, headers }) as unknown as IncomingMessage;
  const response = Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true }) as unknown as ServerResponse;
  return { request, response };
}

async function counted(metrics: RequestMetrics) {
  const { values } = await metrics.httpRequests.get();
  return values.map(({ labels, value }) => ({ ...labels, value }));
}

describe("counting the framework lane's requests", () => {
  it("counts each request once its response closes, with its status, duration and route label", async () => {
    const metrics = freshMetrics();
    const handleCounted = frameworkLaneMetrics({ manifest, metrics });
    const page = exchange("GET", "/acme/api/-/issues?page=3");
    const action = exchange("POST", "/acme/api/-/issues", { "next-action": "7f3a9c" });
    const missing = exchange("GET", "/acme/api/-/nothing");
    for (const { request, response } of [page, action, missing]) handleCounted(request, response, () => {});
    expect(await counted(metrics)).toEqual([]);

    page.response.emit("close");
    action.response.statusCode = 303;
    action.response.emit("close");
    missing.response.statusCode = 404;
    missing.response.emit("close");
    expect(await counted(metrics)).toEqual([
      { method: "GET", route: "/[namespace]/[project]/-/issues", status: "200", value: 1 },
      { method: "POST", route: "/[namespace]/[project]/-/issues (action)", status: "303", value: 1 },
      { method: "GET", route: "(unmatched)", status: "404", value: 1 },
    ]);
    const durations = (await metrics.httpRequestDuration.get()).values.filter(({ metricName }) => metricName === "http_request_duration_seconds_count");
    expect(durations.map(({ labels, value }) => ({ ...labels, value }))).toEqual([
      { method: "GET", route: "/[namespace]/[project]/-/issues", value: 1 },
      { method: "POST", route: "/[namespace]/[project]/-/issues (action)", value: 1 },
      { method: "GET", route: "(unmatched)", value: 1 },
    ]);
  });

  it("labels a request the proxy rewrote by the path the framework routed it by", async () => {
    const metrics = freshMetrics();
    const handleCounted = frameworkLaneMetrics({ manifest, metrics });
    const nested = exchange("GET", "/acme/platform/api/-/issues?state=opened");
    handleCounted(nested.request, nested.response, (request: IncomingMessage) => {
      Object.assign(request, { [Symbol.for("NextInternalRequestMeta")]: { rewrittenPathname: "/acme%2Fplatform/api/-/issues" } });
    });
    nested.response.emit("close");
    const unnoted = exchange("GET", "/acme/platform/api/-/issues");
    handleCounted(unnoted.request, unnoted.response, () => {});
    unnoted.response.emit("close");
    expect(await counted(metrics)).toEqual([
      { method: "GET", route: "/[namespace]/[project]/-/issues", status: "200", value: 1 },
      { method: "GET", route: "(unmatched)", status: "200", value: 1 },
    ]);
  });

  it("leaves out a request a protocol wrapper counted while the framework answered it, and only that one", async () => {
    const metrics = freshMetrics();
    const handleCounted = frameworkLaneMetrics({ manifest, metrics });
    const api = exchange("GET", "/api/v4/user");
    const liveness = exchange("GET", "/-/liveness");
    // The wrapper counts after an await, as it does inside the framework: the mark follows the request's async context.
    handleCounted(api.request, api.response, async () => {
      await Promise.resolve();
      markObservedByWrapper();
    });
    handleCounted(liveness.request, liveness.response, async () => {
      await Promise.resolve();
    });
    await new Promise((resolve) => setImmediate(resolve));
    // Outside any request's scope the mark touches nothing.
    markObservedByWrapper();
    api.response.emit("close");
    liveness.response.emit("close");
    expect(await counted(metrics)).toEqual([{ method: "GET", route: "/-/liveness", status: "200", value: 1 }]);
  });

  it("counts a request whose client hung up once the framework is done with it, unless a wrapper counted it then", async () => {
    const metrics = freshMetrics();
    const handleCounted = frameworkLaneMetrics({ manifest, metrics });
    const api = exchange("POST", "/api/v4/projects");
    const page = exchange("GET", "/acme/api/-/issues");
    let wrapperDone = () => {};
    let pageDone = () => {};
    handleCounted(api.request, api.response, async () => {
      await new Promise<void>((resolve) => (wrapperDone = resolve));
      markObservedByWrapper();
    });
    handleCounted(page.request, page.response, () => new Promise<void>((resolve) => (pageDone = resolve)));
    for (const { response } of [api, page]) {
      Object.assign(response, { writableFinished: false });
      response.emit("close");
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(await counted(metrics)).toEqual([]);

    wrapperDone();
    pageDone();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await counted(metrics)).toEqual([{ method: "GET", route: "/[namespace]/[project]/-/issues", status: "499", value: 1 }]);
  });

  it("never throws into the request when counting fails", async () => {
    const metrics = freshMetrics();
    const failing = { ...metrics, httpRequests: { inc: () => { throw new Error("broken registry"); } } } as unknown as RequestMetrics;
    const handleCounted = frameworkLaneMetrics({ manifest, metrics: failing });
    const { request, response } = exchange("GET", "/");
    const errors: unknown[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      handleCounted(request, response, () => {});
      expect(() => response.emit("close")).not.toThrow();
    } finally {
      console.error = consoleError;
    }
    expect(errors).toHaveLength(1);
  });
});
