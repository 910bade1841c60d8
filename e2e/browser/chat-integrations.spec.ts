import { expect, test } from "@playwright/test";
import { startHookReceiver } from "../../lib/testing/hook-receiver";
import { allowLocalRequestsFromWebHooks, asToken, createProject, createUser } from "../support/api";
import { signIn } from "../support/browser";
import { GitSandbox, pushMain, remoteUrl } from "../support/git";

test("a Maintainer sets Slack up on the page, tests the settings and saves them; a failing receiver's answer is shown", async ({ page, request, baseURL }) => {
  test.setTimeout(90_000);
  await allowLocalRequestsFromWebHooks(request);
  const receiver = await startHookReceiver();
  const failing = await startHookReceiver({ statuses: [500] });
  const git = new GitSandbox();
  try {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const work = await pushMain(git, remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token }), 2);
    const head = await git.ok(["rev-parse", "HEAD"], work);
    await signIn(page, owner.username, owner.password);

    await page.goto(`/${project.path_with_namespace}`);
    const tab = page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Integrations", exact: true });
    await tab.click();
    await expect(tab).toHaveAttribute("aria-current", "page");
    const slackRow = page.getByRole("row", { name: /Slack notifications/ });
    await expect(slackRow).toContainText("Not set up");
    await slackRow.getByRole("link", { name: "Configure Slack notifications" }).click();
    await expect(page.getByRole("heading", { name: "Slack notifications" })).toBeVisible();

    await page.getByLabel("Webhook").fill(`${receiver.url}/slack`);
    await page.getByLabel("Default channel").fill("#dev");
    await page.getByLabel("Username").fill("GitLab");
    await page.getByRole("button", { name: "Test settings" }).click();
    await expect(page.getByText("Connection successful.")).toBeVisible();
    const [sample] = await receiver.waitFor(1);
    const payload = JSON.parse(new URLSearchParams(sample!.body as string).get("payload")!) as { channel: string; username: string; text: string; attachments: { text: string }[] };
    expect(payload).toMatchObject({ channel: "#dev", username: "GitLab" });
    expect(payload.text).toMatch(new RegExp(`^User ${owner.username} pushed to branch <${baseURL}/${project.path_with_namespace}/-/commits/main\\|main> of `));
    expect(payload.attachments[0]!.text).toContain(`|${head.slice(0, 8)}>: Commit 2 - E2E Author`);
    // Testing saves nothing.
    const unsaved = await request.get(`/api/v4/projects/${project.id}/integrations/slack`, { headers: asToken(owner.token) });
    expect(unsaved.status()).toBe(404);

    await page.getByLabel(/^Alert — /).uncheck();
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByText("Integration settings saved.")).toBeVisible();
    const saved = (await (await request.get(`/api/v4/projects/${project.id}/integrations/slack`, { headers: asToken(owner.token) })).json()) as Record<string, unknown>;
    expect(saved).toMatchObject({ active: true, alert_events: false, push_events: true, properties: { channel: "#dev", username: "GitLab" } });
    await page.reload();
    await expect(page.getByLabel("Webhook")).toHaveValue("");
    await expect(page.getByText("A webhook is saved: leave blank to keep it.")).toBeVisible();
    await expect(page.getByLabel("Default channel")).toHaveValue("#dev");

    // Another receiver that fails: the page says what it answered.
    await page.getByLabel("Webhook").fill(`${failing.url}/broken`);
    await page.getByRole("button", { name: "Test settings" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Connection failed" })).toHaveText('Connection failed. Check your integration settings. HTTP 500: {"received":1}');
    await failing.waitFor(1);

    // A webhook the instance would not send to is the field's error.
    await page.getByLabel("Webhook").fill("ftp://example.com/hook");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByText("Webhook is blocked: Only allowed schemes are http, https")).toBeVisible();

    await page.getByRole("link", { name: "← Integrations" }).click();
    await expect(page.getByRole("row", { name: /Slack notifications/ })).toContainText("Active");
  } finally {
    git.dispose();
    await receiver.close();
    await failing.close();
  }
});
