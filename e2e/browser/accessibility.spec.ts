import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "../support/browser";
import { siteFixture, sitePages, type SiteFixture } from "./site-pages";

/**
 * Every page, checked by axe-core against WCAG 2.1 A and AA (no serious or critical violation), and at a phone's
 * width (390 px) for content wider than the screen.
 */

const phone = { width: 390, height: 844 };

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

/** The elements that make the page wider than the viewport (innermost ones, named by tag and class); none when it fits. */
function widerThanViewport(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    // Content clipped by a box that scrolls on its own (a wide table) does not widen the page.
    const scrollsInside = (element: Element) => getComputedStyle(element).overflowX !== "visible";
    const clipped = (element: Element): boolean => {
      for (let box = element.parentElement; box && box !== document.body; box = box.parentElement) {
        if (scrollsInside(box)) return box.getBoundingClientRect().right <= width + 1;
      }
      return false;
    };
    const sticksOut = (element: Element) => element.getBoundingClientRect().right > width + 1 && !clipped(element);
    return [...document.body.querySelectorAll("*")]
      .filter((element) => sticksOut(element) && ![...element.children].some(sticksOut))
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}${element.className ? `.${String(element.className).split(" ").join(".")}` : ""} (${Math.round(element.getBoundingClientRect().right)}px)`);
  });
}

async function visit(page: Page, url: string): Promise<void> {
  const response = await page.goto(url);
  expect(response?.status(), url).toBeLessThan(400);
  // Feeds and previews fill in after the first paint; check what people end up seeing.
  await page.waitForLoadState("networkidle");
}

test.describe("every page", () => {
  // Soft assertions: one run reports every page's findings, not just the first page's.
  let site: SiteFixture;

  test.beforeAll(async ({ request }) => {
    site = await siteFixture(request);
  });

  // A visitor's pages in parts of six, each a test of its own: a part takes about a minute on a quiet machine (five
  // seconds a page, checked twice), so a loaded one stays well within the time limit.
  const pagesPerTest = 6;
  for (const visitor of ["anonymous", "owner"] as const) {
    const pages = sitePages.filter((candidate) => candidate.visitor === visitor);
    for (let start = 0; start < pages.length; start += pagesPerTest) {
      const part = pages.slice(start, start + pagesPerTest);
      test(`has no serious accessibility violations and fits a phone (${visitor}, pages ${start + 1}–${start + part.length})`, async ({ page }) => {
        test.setTimeout(300_000);
        if (visitor === "owner") await signIn(page, site.owner.username, site.owner.password);
        for (const sitePage of part) {
          const url = sitePage.url(site);
          await test.step(sitePage.route, async () => {
            await page.setViewportSize({ width: 1280, height: 800 });
            await visit(page, url);
            expect.soft(await seriousViolations(page), `${sitePage.route} at ${url}`).toEqual([]);
            await page.setViewportSize(phone);
            await visit(page, url);
            expect.soft(await widerThanViewport(page), `${sitePage.route} at ${url} is wider than a phone`).toEqual([]);
            expect.soft(await seriousViolations(page), `${sitePage.route} at ${url} on a phone`).toEqual([]);
          });
        }
      });
    }
  }
});
