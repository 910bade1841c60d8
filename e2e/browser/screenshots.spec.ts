import { expect, test, type Page } from "@playwright/test";
import { bearer, createIntegration, postAlert, receiverPath } from "../support/alerts";
import { asToken, rootToken } from "../support/api";
import { signIn } from "../support/browser";
import { callbackUrl } from "../support/oauth";

/**
 * The main pages as people see them, at a desktop's and a phone's width, compared with the approved screenshots in
 * `screenshots.spec.ts-snapshots/`. A stylesheet mistake that unstyles a page fails here even when every element is
 * still in place. The content is fixed (names, texts; each run has fresh databases), and what changes between runs —
 * times, ids in URLs, secrets — is masked. After an intended change of looks: `npx playwright test
 * e2e/browser/screenshots.spec.ts --update-snapshots`, then look at the new images before committing them.
 */

const viewports = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const password = "screenshot-password-1";

interface Shown {
  username: string;
  projectPath: string;
  authorizeUrl: string;
}

async function showcase(request: import("@playwright/test").APIRequestContext): Promise<Shown> {
  const user = await request.post("/api/v4/users", {
    headers: asToken(rootToken),
    data: { username: "casey", name: "Casey Jones", email: "casey@example.com", password, skip_confirmation: true },
  });
  expect(user.status(), await user.text()).toBe(201);
  const { id } = (await user.json()) as { id: number };
  const tokenResponse = await request.post(`/api/v4/users/${id}/personal_access_tokens`, { headers: asToken(rootToken), data: { name: "shots", scopes: ["api"] } });
  const { token } = (await tokenResponse.json()) as { token: string };
  const post = async <T>(url: string, data: Record<string, unknown>): Promise<T> => {
    const response = await request.post(`/api/v4${url}`, { headers: asToken(token), data });
    expect(response.status(), `${url}: ${await response.text()}`).toBe(201);
    return (await response.json()) as T;
  };
  const project = await post<{ id: number; path_with_namespace: string }>("/projects", {
    name: "Checkout",
    description: "The checkout service: carts, payments and receipts.",
  });
  const issue = await post<{ iid: number }>(`/projects/${project.id}/issues`, {
    title: "Checkout fails on empty carts",
    description: "Steps to reproduce:\n1. Empty the cart\n2. Press Checkout\n\nThe page answers 500.",
  });
  await post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: "Seen on production too, since the last deploy." });
  await post(`/projects/${project.id}/issues`, { title: "Receipts show the wrong currency" });
  await post(`/projects/${project.id}/milestones`, { title: "v1.2" });
  const integration = await createIntegration(request, token, project.id, {
    name: "Production monitoring",
    payload_example: JSON.stringify(
      { check: { name: "Checkout latency", level: "crit" }, items: [{ host: "web-1" }, { host: "web-2" }], fired_at: 1767261600, team: "payments" },
      null,
      2,
    ),
    payload_attribute_mapping: {
      title: { path: ["check", "name"], type: "string", label: "check/name" },
      severity: { path: ["check", "level"], type: "string", label: "check/level", values: { crit: "critical", warn: "low" }, fallback: "info" },
      hosts: { path: ["items", { each: true }, "host"], type: "array", label: "items[*]/host" },
      start_time: { path: ["fired_at"], type: "number", label: "fired_at" },
      service: { path: ["team"], type: "string", label: "team" },
    },
  });
  // In the shape the integration maps (its sample's), so the list shows mapped severities, hosts and times.
  for (const alert of [
    { check: { name: "High error rate on checkout", level: "crit" }, items: [{ host: "web-1" }, { host: "web-2" }], fired_at: 1767261600, team: "checkout" },
    { check: { name: "Slow payment provider", level: "warn" }, items: [{ host: "pay-1" }], fired_at: 1767265200, team: "payments" },
  ]) {
    const response = await postAlert(request, receiverPath(integration), alert, bearer(integration.token));
    expect(response.status(), await response.text()).toBe(200);
  }
  const registered = await request.post("/api/v4/applications", {
    headers: asToken(rootToken),
    data: { name: "Deploy Dashboard", redirect_uri: callbackUrl, scopes: "read_user openid profile" },
  });
  expect(registered.status(), await registered.text()).toBe(201);
  const application = (await registered.json()) as { application_id: string };
  const authorize = new URLSearchParams({ client_id: application.application_id, redirect_uri: callbackUrl, response_type: "code", scope: "read_user openid profile", state: "s" });
  return { username: "casey", projectPath: project.path_with_namespace, authorizeUrl: `/oauth/authorize?${authorize.toString()}` };
}

/** Everything that differs between two runs of the same story. */
function volatile(page: Page) {
  return [page.locator("time"), page.locator("[data-volatile]"), page.locator("code"), page.locator("input[readonly]")];
}

/** `url` at each width, after `open` (a click that reveals what is shown) when given. */
async function expectLooks(page: Page, url: string, name: string, open?: () => Promise<void>): Promise<void> {
  for (const [width, viewport] of Object.entries(viewports)) {
    await page.setViewportSize(viewport);
    await page.goto(url);
    await page.waitForLoadState("networkidle");
    await open?.();
    await expect(page).toHaveScreenshot(`${name}-${width}.png`, { fullPage: true, mask: volatile(page), maskColor: "#dcdcde", maxDiffPixelRatio: 0.01 });
  }
}

test.describe("the main pages look as approved", () => {
  test("signed out", async ({ page }) => {
    await expectLooks(page, "/users/sign_in", "sign-in");
  });

  // Its fixture has fixed names, made once per run (each run has fresh databases).
  test("signed in", async ({ page, request }) => {
    test.setTimeout(180_000);
    const shown = await showcase(request);
    await signIn(page, shown.username, password);
    const project = `/${shown.projectPath}`;
    await expectLooks(page, "/projects", "projects");
    await expectLooks(page, project, "project");
    await expectLooks(page, `${project}/-/issues`, "issues");
    await expectLooks(page, `${project}/-/issues/1`, "issue");
    await expectLooks(page, `${project}/-/alert_management`, "alerts");
    await expectLooks(page, `${project}/-/alert_management/1/details`, "alert");
    await expectLooks(page, `${project}/-/settings/operations`, "alert-settings");
    await expectLooks(page, `${project}/-/settings/operations`, "mapper", async () => {
      await page.getByRole("button", { name: "Edit" }).click();
      await expect(page.getByRole("region", { name: "Alert preview" })).toBeVisible();
    });
    await expectLooks(page, "/dashboard/activity", "activity");
    await expectLooks(page, `/${shown.username}`, "profile");
    await expectLooks(page, shown.authorizeUrl, "consent");
  });
});
