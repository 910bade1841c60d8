import { expect, test, type APIRequestContext } from "@playwright/test";
import {
  cloudWatchAlarmNotification,
  grafanaWebhook,
  headerAuthenticatedTools,
  pagerDutyFollowUp,
  pagerDutyTrigger,
  snsSubscriptionConfirmation,
} from "../../lib/testing/alert-format-fixtures";
import { asToken, createProject, createUser, expectJson, type CreatedUser } from "../support/api";
import { alertsPath, basicWithKey, bearer, createIntegration, integrationsPath, listAlerts, postAlert, receiverPath, type Integration } from "../support/alerts";
import { signIn } from "../support/browser";

// Each tool's documented payload, posted over HTTP to the production server, as the tool would send it.

interface FormattedIntegration extends Integration {
  payload_format: string;
  last_payload_format: string | null;
  pagerduty_events_url: string;
  opsgenie_alerts_url: string;
  sns_subscription_confirmation: { topic_arn: string; subscribe_url: string; received_at: string } | null;
}

interface StoredAlert {
  iid: number;
  title: string;
  severity: string;
  status: string;
  monitoring_tool: string | null;
  event_count: number;
  payload_format: string | null;
  source_links: { label: string; url: string }[];
}

async function projectWithIntegration(request: APIRequestContext, data: Record<string, unknown> = {}) {
  const owner = await createUser(request);
  const project = await createProject(request, owner.token);
  const integration = (await createIntegration(request, owner.token, project.id, data)) as FormattedIntegration;
  return { owner, project, integration };
}

async function readIntegration(request: APIRequestContext, owner: CreatedUser, projectId: number, id: number): Promise<FormattedIntegration> {
  const response = await request.get(`${integrationsPath(projectId)}/${id}`, { headers: asToken(owner.token) });
  expect(response.status()).toBe(200);
  return (await response.json()) as FormattedIntegration;
}

async function storedAlerts(request: APIRequestContext, owner: CreatedUser, projectId: number): Promise<StoredAlert[]> {
  return (await listAlerts(request, owner.token, projectId, "?sort=started_at_asc")) as unknown as StoredAlert[];
}


test.describe("alert payload formats", () => {
  for (const lifecycle of headerAuthenticatedTools) {
    test(`${lifecycle.format}: fires, groups the repeat and resolves, with the source's links`, async ({ request }) => {
      const { owner, project, integration } = await projectWithIntegration(request);
      const path = receiverPath(integration);
      const { title, severity, monitoringTool } = lifecycle.alert;
      const recorded = [{ iid: 1, title }];
      await expectJson(await postAlert(request, path, lifecycle.fire, bearer(integration.token)), lifecycle.status, recorded);
      await expectJson(await postAlert(request, path, lifecycle.fire, basicWithKey(integration.token)), lifecycle.status, recorded);
      let [alert] = await storedAlerts(request, owner, project.id);
      expect(alert).toMatchObject({ title, severity, monitoring_tool: monitoringTool, status: "triggered", event_count: 2, payload_format: lifecycle.format });
      expect(alert!.source_links.map((link) => link.label)).toEqual(lifecycle.links);

      await expectJson(await postAlert(request, path, lifecycle.resolve, bearer(integration.token)), lifecycle.status, recorded);
      const alerts = await storedAlerts(request, owner, project.id);
      expect(alerts).toHaveLength(1);
      [alert] = alerts;
      expect(alert).toMatchObject({ status: "resolved", event_count: 2 });
      expect((await readIntegration(request, owner, project.id, integration.id)).last_payload_format).toBe(lifecycle.format);
    });
  }

  test("PagerDuty events: the /v2/enqueue URL takes the routing key and answers PagerDuty's 202 through trigger, acknowledge, resolve", async ({ request }) => {
    const { owner, project, integration } = await projectWithIntegration(request);
    expect(integration.pagerduty_events_url).toBe(integration.url.replace(/\.json$/, "/v2/enqueue"));
    const events = new URL(integration.pagerduty_events_url).pathname;
    const accepted = { status: "success", message: "Event processed", dedup_key: "samplekeyhere" };
    // PagerDuty clients send no Authorization header: the key is the event's routing key.
    await expectJson(await postAlert(request, events, pagerDutyTrigger(integration.token)), 202, accepted);
    await expectJson(await postAlert(request, events, pagerDutyTrigger(integration.token)), 202, accepted);
    let [alert] = await storedAlerts(request, owner, project.id);
    expect(alert).toMatchObject({ title: "Example alert on host1.example.com", severity: "info", status: "triggered", event_count: 2, payload_format: "pagerduty" });
    expect(JSON.stringify(alert)).not.toContain(integration.token);

    await expectJson(await postAlert(request, events, pagerDutyFollowUp(integration.token, "acknowledge")), 202, accepted);
    [alert] = await storedAlerts(request, owner, project.id);
    expect(alert!.status).toBe("acknowledged");
    await expectJson(await postAlert(request, events, pagerDutyFollowUp(integration.token, "resolve")), 202, accepted);
    [alert] = await storedAlerts(request, owner, project.id);
    expect(alert!.status).toBe("resolved");

    // The ordinary URL recognizes the same body (with the key in a header) and answers the same way.
    await expectJson(await postAlert(request, receiverPath(integration), pagerDutyTrigger("unused", "other"), bearer(integration.token)), 202, {
      ...accepted,
      dedup_key: "other",
    });
    await expectJson(await postAlert(request, events, { routing_key: integration.token, event_action: "snooze" }), 400, {
      status: "invalid event",
      message: "Event object is invalid",
      errors: ["'event_action' is missing or invalid (must be one of trigger, acknowledge, resolve)"],
    });
    await expectJson(await postAlert(request, events, pagerDutyTrigger("not-the-key")), 401, { message: "401 Unauthorized" });
  });

  test("the format setting overrides detection; bad values are refused in GitLab's shape", async ({ request }) => {
    const { owner, project, integration } = await projectWithIntegration(request, { payload_format: "generic" });
    expect(integration.payload_format).toBe("generic");
    const path = receiverPath(integration);
    await expectJson(await postAlert(request, path, grafanaWebhook("firing"), bearer(integration.token)), 200, [{ iid: 1, title: "[FIRING:1]  (blue)" }]);

    const update = await request.put(`${integrationsPath(project.id)}/${integration.id}`, { headers: asToken(owner.token), data: { payload_format: "auto" } });
    expect(update.status()).toBe(200);
    expect(await update.json()).toMatchObject({ payload_format: "auto", last_payload_format: "generic" });
    await expectJson(await postAlert(request, path, grafanaWebhook("firing"), bearer(integration.token)), 201, [
      { iid: 2, title: "This alert was triggered for zone us-1" },
    ]);

    await expectJson(
      await request.put(`${integrationsPath(project.id)}/${integration.id}`, { headers: asToken(owner.token), data: { payload_format: "no-such-format" } }),
      400,
      { error: "payload_format does not have a valid value" },
    );
    const created = await request.post(integrationsPath(project.id), {
      headers: asToken(owner.token),
      data: { name: "x", type: "http", active: true, payload_format: 7 },
    });
    expect(created.status()).toBe(400);
    const alerts = await request.get(alertsPath(project.id), { headers: asToken(owner.token) });
    expect(((await alerts.json()) as StoredAlert[]).map((alert) => alert.payload_format).sort()).toEqual(["generic", "grafana"]);
  });

  test("pages: the last format on the integration list, the SNS confirmation to open by hand, the source's links on the alert", async ({ page, request }) => {
    const { owner, project, integration } = await projectWithIntegration(request);
    const path = receiverPath(integration);
    await expectJson(await postAlert(request, path, snsSubscriptionConfirmation(), bearer(integration.token)), 200, {
      message: "The subscription confirmation is kept for a Maintainer to confirm on the integration's settings.",
    });
    expect((await readIntegration(request, owner, project.id, integration.id)).sns_subscription_confirmation).toMatchObject({
      topic_arn: "arn:aws:sns:us-west-2:123456789012:MyTopic",
      subscribe_url: snsSubscriptionConfirmation().SubscribeURL,
    });

    await signIn(page, owner.username, owner.password);
    await page.goto(`/${project.path_with_namespace}/-/settings/operations`);
    const notice = page.getByRole("status").filter({ hasText: `Confirm the Amazon SNS subscription of ${integration.name}` });
    await expect(notice).toBeVisible();
    await expect(notice.getByRole("link", { name: "Confirm the subscription in Amazon SNS" })).toHaveAttribute("href", snsSubscriptionConfirmation().SubscribeURL);
    const row = page.getByRole("row").filter({ hasText: integration.name });
    await expect(row.getByRole("cell").nth(1)).toHaveText(`${integration.name}Last alert: CloudWatch`);

    // The topic's first alarm confirms the subscription worked: the notice goes, and the alert carries its links.
    await expectJson(await postAlert(request, path, grafanaWebhook("firing"), bearer(integration.token)), 201, [
      { iid: 1, title: "This alert was triggered for zone us-1" },
    ]);
    await postAlert(request, path, cloudWatchAlarmNotification("ALARM"), bearer(integration.token));
    await page.reload();
    await expect(page.getByText(`Confirm the Amazon SNS subscription of ${integration.name}`)).toHaveCount(0);
    await expect(row.getByRole("cell").nth(1)).toHaveText(`${integration.name}Last alert: CloudWatch`);
    await row.getByRole("button", { name: `Edit integration ${integration.name}` }).click();
    await expect(page.getByLabel("4. Payload format")).toHaveValue("auto");
    await page.getByRole("tab", { name: "View credentials" }).click();
    await expect(page.getByLabel("PagerDuty Events API v2 URL")).toHaveValue(integration.pagerduty_events_url);
    await expect(page.getByLabel("Opsgenie Alert API URL")).toHaveValue(integration.opsgenie_alerts_url);

    await page.goto(`/${project.path_with_namespace}/-/alert_management/1/details`);
    await expect(page.getByRole("definition").filter({ hasText: "Grafana alerting" })).toBeVisible();
    const links = page.getByRole("list", { name: "Links from the source" });
    await expect(links.getByRole("link")).toHaveText(["Alert rule", "Runbook", "Dashboard", "Panel", "Silence"]);
    await expect(links.getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "https://play.grafana.org/d/000000012");
  });
});
