import { describe, expect, it } from "vitest";
import { sitePages } from "@/e2e/browser/site-pages";

/** Every page file of the site (keys only: nothing is loaded). */
const pageFiles = Object.keys(import.meta.glob("/app/**/page.tsx"));

describe("the site's pages", () => {
  it("are all visited by the accessibility spec (e2e/browser/accessibility.spec.ts)", () => {
    const routes = pageFiles.map((file) => file.replace(/^\/app/, "").replace(/\/page\.tsx$/, "") || "/");
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.sort()).toEqual(sitePages.map((page) => page.route).sort());
  });
});
