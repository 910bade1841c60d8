import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { createProjectWithMember } from "../support/api";
import { bearer, createIntegration, listAlerts, postAlert, receiverPath } from "../support/alerts";
import { signIn, withFreshApi } from "../support/browser";

function statusTab(page: Page, label: string) {
  return page.getByRole("navigation", { name: "Alert status" }).getByRole("link", { name: new RegExp(`^${label} \\d+$`) });
}

async function storedAlert(api: APIRequestContext, token: string, projectId: number, iid: number) {
  const alerts = await listAlerts(api, token, projectId, "?per_page=100");
  return alerts.find((alert) => alert.iid === iid);
}

test("a status changes only with Update status, says so, and can be undone; tabs count the alerts", async ({ page, request, playwright, baseURL }) => {
  const { owner, member: developer, project } = await createProjectWithMember(request, 30);
  const integration = await createIntegration(request, owner.token, project.id);
  await postAlert(request, receiverPath(integration), { title: "CPU hot", severity: "high" }, bearer(integration.token));
  await postAlert(request, receiverPath(integration), { title: "Disk slow", severity: "low" }, bearer(integration.token));

  await signIn(page, developer.username, developer.password);
  await page.goto(`/${project.path_with_namespace}/-/alert_management`);
  await expect(statusTab(page, "Open")).toHaveText("Open 2");
  await expect(statusTab(page, "Triggered")).toHaveText("Triggered 2");
  await expect(statusTab(page, "Acknowledged")).toHaveText("Acknowledged 0");
  await expect(statusTab(page, "Resolved")).toHaveText("Resolved 0");
  await expect(statusTab(page, "All alerts")).toHaveText("All alerts 2");

  // Arrow keys on the status only prepare a change.
  const select = page.getByRole("combobox", { name: "Status of alert #1" });
  const update = page.getByRole("button", { name: "Update status of alert #1" });
  await expect(update).toBeDisabled();
  await select.focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("status")).toHaveCount(0);
  await withFreshApi(playwright, baseURL, async (api) => {
    expect((await storedAlert(api, owner.token, project.id, 1))?.status).toBe("triggered");
  });

  // Resolving from the Open tab: the row leaves, the notice says where it went.
  await select.selectOption("resolved");
  await update.click();
  const notice = page.getByRole("status").filter({ hasText: "Alert #1 resolved." });
  await expect(notice).toHaveText(/^Alert #1 resolved\. It is no longer in this list: see the Resolved tab\.\s*Undo$/);
  await expect(page.getByRole("row").filter({ hasText: "#1 CPU hot" })).toHaveCount(0);
  await expect(statusTab(page, "Open")).toHaveText("Open 1");
  await expect(statusTab(page, "Resolved")).toHaveText("Resolved 1");
  await withFreshApi(playwright, baseURL, async (api) => {
    expect((await storedAlert(api, owner.token, project.id, 1))?.status).toBe("resolved");
  });
  await page.screenshot({ path: test.info().outputPath("alert-resolved.png"), fullPage: true });

  // Undo restores the previous status and the row.
  await notice.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Alert #1 is Triggered again." })).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "#1 CPU hot" })).toBeVisible();
  await expect(page.getByRole("combobox", { name: "Status of alert #1" })).toHaveValue("triggered");
  await expect(statusTab(page, "Open")).toHaveText("Open 2");
  await withFreshApi(playwright, baseURL, async (api) => {
    expect((await storedAlert(api, owner.token, project.id, 1))?.status).toBe("triggered");
  });

  // On the details page too.
  await page.getByRole("link", { name: "#2 Disk slow" }).click();
  await expect(page).toHaveURL(new RegExp(`/${project.path_with_namespace}/-/alert_management/2/details$`));
  await page.getByRole("combobox", { name: "Status of alert #2" }).selectOption("acknowledged");
  await page.getByRole("button", { name: "Update status of alert #2" }).click();
  const detailsNotice = page.getByRole("status").filter({ hasText: "Alert #2 acknowledged." });
  await expect(detailsNotice).toBeVisible();
  await expect(page.getByRole("region", { name: "Activity feed" })).toContainText("changed the status to Acknowledged");
  await detailsNotice.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Alert #2 is Triggered again." })).toBeVisible();
  await expect(page.getByRole("combobox", { name: "Status of alert #2" })).toHaveValue("triggered");
  await withFreshApi(playwright, baseURL, async (api) => {
    expect((await storedAlert(api, owner.token, project.id, 2))?.status).toBe("triggered");
  });
});

test("Create incident opens an issue for the alert, linked from the alert and the list", async ({ page, request, playwright, baseURL }) => {
  const { owner, member: reporter, project } = await createProjectWithMember(request, 20);
  const integration = await createIntegration(request, owner.token, project.id);
  await postAlert(request, receiverPath(integration), { title: "Queue stuck", severity: "critical" }, bearer(integration.token));

  await signIn(page, owner.username, owner.password);
  await page.goto(`/${project.path_with_namespace}/-/alert_management/1/details`);
  await page.getByRole("button", { name: "Create incident" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Incident #1 created for this alert." })).toBeVisible();
  const link = page.getByRole("link", { name: "Incident #1" });
  await expect(link).toHaveAttribute("href", `/${project.path_with_namespace}/-/issues/1`);
  await expect(page.getByRole("button", { name: "Create incident" })).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Activity feed" })).toContainText("created incident #1 for this alert");
  await withFreshApi(playwright, baseURL, async (api) => {
    expect((await storedAlert(api, owner.token, project.id, 1))?.issue_iid).toBe(1);
    const issue = await api.get(`/api/v4/projects/${project.id}/issues/1`, { headers: { "PRIVATE-TOKEN": owner.token } });
    expect(await issue.json()).toMatchObject({ iid: 1, title: "Queue stuck", issue_type: "incident", author: { username: owner.username } });
  });
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/${project.path_with_namespace}/-/issues/1$`));

  await page.goto(`/${project.path_with_namespace}/-/alert_management`);
  await expect(page.getByRole("row").filter({ hasText: "#1 Queue stuck" }).getByRole("link", { name: "Incident #1" })).toHaveAttribute(
    "href",
    `/${project.path_with_namespace}/-/issues/1`,
  );

  // Reporters see the link but cannot create incidents.
  await postAlert(request, receiverPath(integration), { title: "Second", severity: "low" }, bearer(integration.token));
  await page.context().clearCookies();
  await signIn(page, reporter.username, reporter.password);
  await page.goto(`/${project.path_with_namespace}/-/alert_management/2/details`);
  await expect(page.getByRole("heading", { name: "#2 Second" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Create incident" })).toHaveCount(0);
  await expect(page.locator("dl", { has: page.getByText("Monitoring tool") })).toContainText("IncidentNone");
});
