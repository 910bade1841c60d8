import { expect, test } from "@playwright/test";
import { startHookReceiver } from "../../lib/testing/hook-receiver";
import { addMember, allowLocalRequestsFromWebHooks, asToken, createProject, createUser } from "../support/api";
import { signIn } from "../support/browser";

test("a Maintainer adds a webhook, tests it, reads its request and resends it, then deletes it", async ({ page, request }) => {
  await allowLocalRequestsFromWebHooks(request);
  const receiver = await startHookReceiver();
  try {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const issue = await request.post(`/api/v4/projects/${project.id}/issues`, { headers: asToken(owner.token), data: { title: "Sample issue" } });
    expect(issue.status()).toBe(201);
    await signIn(page, owner.username, owner.password);

    await page.goto(`/${project.path_with_namespace}/-/hooks`);
    await expect(page.getByRole("link", { name: "Webhooks" })).toHaveAttribute("aria-current", "page");
    await page.getByLabel("URL").fill(`${receiver.url}/from-the-page`);
    await page.getByLabel("Name (optional)").fill("Page hook");
    await page.getByLabel("Secret token").fill("page-secret");
    await page.getByLabel(/^Issues events/).check();
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByText("Webhook was created.")).toBeVisible();
    const row = page.getByRole("row", { name: /Page hook/ });
    await expect(row).toContainText("Enabled");
    await expect(row).toContainText("Push events, Issue events");

    await row.getByLabel(/Event to test/).selectOption("issues_events");
    await row.getByRole("button", { name: "Test" }).click();
    await expect(page.getByText("Hook executed successfully.")).toBeVisible();
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.headers["x-gitlab-event"]).toBe("Issue Hook");
    expect(delivery!.headers["x-gitlab-token"]).toBe("page-secret");

    await row.getByRole("link", { name: "Edit webhook Page hook" }).click();
    await expect(page.getByRole("heading", { name: /Edit webhook/ })).toBeVisible();
    await expect(page.getByLabel("URL")).toHaveValue(`${receiver.url}/from-the-page`);
    await expect(page.getByLabel("Secret token")).toHaveValue("");
    const events = page.getByRole("table", { name: "Recent events" });
    await expect(events.getByRole("row")).toHaveCount(2);
    await expect(events).toContainText("200");
    await events.getByRole("link", { name: "View details" }).click();
    await expect(page.getByRole("heading", { name: "Request details" })).toBeVisible();
    await expect(page.getByLabel("Request headers")).toContainText("X-Gitlab-Token: [REDACTED]");
    await expect(page.getByLabel("Request body")).toContainText('"object_kind": "issue"');
    await page.getByRole("button", { name: "Resend Request" }).click();
    await expect(page.getByText("Request sent again: 200.")).toBeVisible();
    const again = await receiver.waitFor(2);
    expect(again[1]!.headers["idempotency-key"]).toBe(delivery!.headers["idempotency-key"]);

    // Developers cannot open the page.
    const developer = await createUser(request);
    await addMember(request, owner.token, project.id, developer.id, 30);

    await page.goto(`/${project.path_with_namespace}/-/hooks`);
    await page.getByRole("button", { name: "Delete webhook Page hook" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete webhook" }).click();
    await expect(page.getByText("No webhooks enabled.")).toBeVisible();
    const hooks = await request.get(`/api/v4/projects/${project.id}/hooks`, { headers: asToken(owner.token) });
    expect(await hooks.json()).toEqual([]);

    await page.context().clearCookies();
    await signIn(page, developer.username, developer.password);
    const refused = await page.goto(`/${project.path_with_namespace}/-/hooks`);
    expect(refused?.status()).toBe(404);
  } finally {
    await receiver.close();
  }
});
