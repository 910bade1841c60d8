import { describe, expect, it } from "vitest";
import { matchPattern, matchRoute, routeTable } from "./route-table.mjs";

const manifest = {
  "/api/v4/[...path]/route": "app/api/v4/[...path]/route.js",
  "/api/v4/projects/route": "app/api/v4/projects/route.js",
  "/api/v4/projects/[id]/route": "app/api/v4/projects/[id]/route.js",
  "/api/v4/projects/[id]/events/route": "app/api/v4/projects/[id]/events/route.js",
  "/[namespace]/[project]/alerts/[...segments]/route": "app/[namespace]/[project]/alerts/[...segments]/route.js",
  "/[namespace]/[project]/activity/page": "app/[namespace]/[project]/activity/page.js",
  "/(marketing)/docs/[[...slug]]/route": "app/(marketing)/docs/[[...slug]]/route.js",
  "/-/liveness/route": "app/-/liveness/route.js",
};
const table = routeTable(manifest);
const file = (pathname: string) => matchRoute(table, pathname)?.file ?? null;

describe("the route table built from the framework's manifest", () => {
  it("finds static routes, and prefers a static segment to a dynamic one", () => {
    expect(matchRoute(table, "/api/v4/projects")).toEqual({ entry: "/api/v4/projects/route", file: "app/api/v4/projects/route.js", params: {} });
    expect(matchRoute(table, "/-/liveness")).toEqual({ entry: "/-/liveness/route", file: "app/-/liveness/route.js", params: {} });
  });

  it("decodes dynamic segments as the framework does, an encoded slash included", () => {
    expect(matchRoute(table, "/api/v4/projects/group%2Fproject/events")).toEqual({
      entry: "/api/v4/projects/[id]/events/route",
      file: "app/api/v4/projects/[id]/events/route.js",
      params: { id: "group/project" },
    });
  });

  it("falls back to a catch-all, and from a static prefix that leads nowhere to the dynamic routes", () => {
    expect(matchRoute(table, "/api/v4/projects/7/nothing")).toEqual({
      entry: "/api/v4/[...path]/route",
      file: "app/api/v4/[...path]/route.js",
      params: { path: ["projects", "7", "nothing"] },
    });
    expect(matchRoute(table, "/api/other/alerts/notify/x/abc.json")).toEqual({
      entry: "/[namespace]/[project]/alerts/[...segments]/route",
      file: "app/[namespace]/[project]/alerts/[...segments]/route.js",
      params: { namespace: "api", project: "other", segments: ["notify", "x", "abc.json"] },
    });
  });

  it("leaves route groups out of the path and lets an optional catch-all match nothing", () => {
    expect(matchRoute(table, "/docs")).toEqual({ entry: "/(marketing)/docs/[[...slug]]/route", file: "app/(marketing)/docs/[[...slug]]/route.js", params: {} });
    expect(matchRoute(table, "/docs/a/b")?.params).toEqual({ slug: ["a", "b"] });
  });

  it("has no pages, and matches nothing the framework would normalize or refuse first", () => {
    expect(file("/group/project/activity")).toBeNull();
    expect(file("/api/v4/projects/")).toBeNull();
    expect(file("/api//v4/projects")).toBeNull();
    expect(file("/api/v4/./projects")).toBeNull();
    expect(file("/api/v4/projects/%E0%A4%A")).toBeNull();
    expect(file("api/v4/projects")).toBeNull();
    expect(file("/")).toBeNull();
  });

  it("takes pages too when asked, and gives each match its folders' pattern", () => {
    const withPages = routeTable({ ...manifest, "/page": "app/page.js", "/(auth)/users/@modal/sign_in/page": "app/(auth)/users/@modal/sign_in/page.js" }, { pages: true });
    expect(matchRoute(withPages, "/group/project/activity")).toEqual({
      entry: "/[namespace]/[project]/activity/page",
      file: "app/[namespace]/[project]/activity/page.js",
      params: { namespace: "group", project: "project" },
    });
    expect(matchPattern(withPages, "/group/project/activity")).toBe("/[namespace]/[project]/activity");
    expect(matchPattern(withPages, "/")).toBe("/");
    expect(matchPattern(withPages, "/users/sign_in")).toBe("/users/sign_in");
    expect(matchPattern(withPages, "/api/v4/projects/group%2Fproject/events")).toBe("/api/v4/projects/[id]/events");
    expect(matchPattern(withPages, "/api/v4/projects/7/nothing")).toBe("/api/v4/[...path]");
    expect(matchPattern(withPages, "/docs/a/b")).toBe("/docs/[[...slug]]");
    expect(matchPattern(withPages, "/docs")).toBe("/docs/[[...slug]]");
    for (const pathname of ["/group/project/nothing", "/api/v4/projects/", "/api//v4", "/api/v4/../x", "api/v4/projects"]) {
      expect(matchPattern(withPages, pathname), pathname).toBeNull();
    }
    expect(matchPattern(table, "/group/project/activity")).toBeNull();
  });

  it("refuses a manifest whose catch-all is not the last segment", () => {
    expect(() => routeTable({ "/a/[...rest]/b/route": "app/a/[...rest]/b/route.js" })).toThrow("a catch-all segment must come last: /a/[...rest]/b/route");
  });
});
