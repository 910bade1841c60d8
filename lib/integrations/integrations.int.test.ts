import { describe, expect, it, vi } from "vitest";
import { eq, sql } from "drizzle-orm";
import { createIntegration as createAlertIntegration } from "@/lib/alerts/integrations";
import { updateAlertSettings } from "@/lib/alerts/settings";
import { sendTestAlert } from "@/lib/alerts/test-alert";
import { outboxMessages, projectIntegrations } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { ForbiddenError, NotFoundError, TooManyRequestsError, UnprocessableError, ValidationError } from "@/lib/errors";
import { recordPushEvents } from "@/lib/git/push-events";
import { repositoryPath } from "@/lib/git/repositories";
import { createIssue, updateIssue } from "@/lib/issues/issues";
import { createNote } from "@/lib/issues/notes";
import { addMember } from "@/lib/projects/members";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, apiFailure, createTestUser, userContext } from "@/lib/testing/fixtures";
import { pushBranches } from "@/lib/testing/git";
import { startHookReceiver } from "@/lib/testing/hook-receiver";
import { senderSuite } from "@/lib/testing/outbox-senders";
import { chatNotificationSender } from "./delivery";
import { enqueueChatNotifications, type ChatDelivery } from "./enqueue";
import { disableIntegration, getIntegration, listActiveIntegrations, saveIntegration, serializeIntegration } from "./integrations";
import { testIntegrationSettings } from "./test-settings";
import { chatNotificationTopic } from "./topic";

const repositoriesRoot = vi.hoisted(() => {
  const root = `${process.env.TMPDIR ?? "/tmp"}/integrations-test-repositories-${process.pid}-${Date.now()}`;
  process.env.REPOSITORIES_DIR = root;
  return root;
});

const zero = "0".repeat(40);

describe.each(testDatabases())("chat integrations on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  const { allowLocalNetwork, projectWithOwner, deliverAll } = senderSuite(handle, { [chatNotificationTopic]: chatNotificationSender() }, { repositoriesRoot, projectName: "Chatty" });

  /** The chat messages waiting in the outbox for the project's integrations, oldest first. */
  async function waiting(integrationIds: number[]): Promise<(ChatDelivery & { orderingKey: string })[]> {
    if (integrationIds.length === 0) return [];
    const rows = await handle.db
      .select()
      .from(outboxMessages)
      .where(sql`${outboxMessages.topic} = ${chatNotificationTopic} and (${outboxMessages.payload}->>'integrationId')::int in (${sql.join(integrationIds.map((id) => sql`${id}`), sql`, `)})`)
      .orderBy(outboxMessages.id);
    return rows.map((row) => ({ ...(row.payload as unknown as ChatDelivery), orderingKey: row.orderingKey }));
  }

  const slackPayload = (delivery: ChatDelivery) => JSON.parse(new URLSearchParams(delivery.request.body).get("payload")!) as Record<string, unknown>;

  it("sets an integration up as GitLab's API does: Maintainers only, GitLab's defaults, the webhook encrypted and never shown", async () => {
    const { owner, ctx, view, reference } = await projectWithOwner();
    const saved = await saveIntegration(ctx, reference, "slack", { webhook: "https://hooks.slack.com/services/T0/B0/secret", username: "GitLab", push_channel: "#pushes", merge_requests_events: false });
    // GitLab's defaults, but for the toggle given.
    expect(serializeIntegration(saved.integration)).toMatchObject({ title: "Slack notifications", slug: "slack", active: true, push_events: true, incident_events: false, merge_requests_events: false });
    // Every setting but the webhook, as GitLab lists Slack's.
    expect(serializeIntegration(saved.integration).properties).toEqual({
      username: "GitLab",
      channel: null,
      notify_only_broken_pipelines: true,
      branches_to_be_notified: "default",
      labels_to_be_notified: null,
      labels_to_be_notified_behavior: "match_any",
      push_channel: "#pushes",
      issue_channel: null,
      confidential_issue_channel: null,
      merge_request_channel: null,
      note_channel: null,
      confidential_note_channel: null,
      tag_push_channel: null,
      pipeline_channel: null,
      wiki_page_channel: null,
      deployment_channel: null,
      incident_channel: null,
      alert_channel: null,
    });
    const [stored] = await handle.db.select().from(projectIntegrations).where(eq(projectIntegrations.id, saved.integration.id));
    expect(stored!.webhookCiphertext).not.toContain("secret");
    expect(JSON.stringify(stored!.properties)).not.toContain("secret");

    // Settings left out keep their values; what the integration does not take is dropped.
    const changed = await saveIntegration(ctx, reference, "slack", { webhook: "https://hooks.slack.com/services/T0/B0/other", push_events: false, issue_channel: "#issues", job_events: true } as never);
    expect(serializeIntegration(changed.integration)).toMatchObject({ push_events: false, properties: { username: "GitLab", push_channel: "#pushes", issue_channel: "#issues", confidential_issue_channel: "#issues" } });
    // JSON lets a client send half a surrogate pair, which the database's JSON cannot hold: it is kept as text keeps it.
    const broken = await saveIntegration(ctx, reference, "slack", { webhook: "https://hooks.slack.com/services/T0/B0/other", username: "Bot \ud800" });
    expect(broken.integration.properties.username).toBe("Bot \ufffd");
    const teams = await saveIntegration(ctx, reference, "microsoft_teams", { webhook: "https://outlook.office.com/webhook/x", username: "ignored", branches_to_be_notified: "all" });
    expect(serializeIntegration(teams.integration).properties).toEqual({ notify_only_broken_pipelines: true, branches_to_be_notified: "all" });
    expect((await listActiveIntegrations(ctx, reference)).map(({ integration }) => integration.type)).toEqual(["slack", "microsoft_teams"]);

    // Turned off: listed no more, its settings reset, still readable.
    await disableIntegration(ctx, reference, "slack");
    expect((await listActiveIntegrations(ctx, reference)).map(({ integration }) => integration.type)).toEqual(["microsoft_teams"]);
    const disabled = await getIntegration(ctx, reference, "slack");
    expect(serializeIntegration(disabled.integration)).toMatchObject({ active: false, push_events: false, properties: { username: null, branches_to_be_notified: null } });
    expect(disabled.integration.webhookCiphertext).toBeNull();
    expect(await apiFailure(getIntegration(ctx, reference, "discord"))).toBeInstanceOf(NotFoundError);

    // Developers may not; people who cannot see the project learn nothing.
    const developer = await createTestUser(handle.db);
    await addMember(ctx, reference, { userId: developer.id, accessLevel: 30 });
    expect(await apiFailure(saveIntegration(userContext(handle.db, developer), reference, "slack", { webhook: "https://hooks.slack.com/services/x" }))).toBeInstanceOf(ForbiddenError);
    expect(await apiFailure(getIntegration(userContext(handle.db, await createTestUser(handle.db)), reference, "microsoft_teams"))).toBeInstanceOf(NotFoundError);
    expect(await apiFailure(listActiveIntegrations(anonymousTestContext(handle.db), reference))).toBeInstanceOf(NotFoundError);
    expect(view.project.visibility).toBe("private");
    expect(owner.id).toBeGreaterThan(0);
  });

  it("refuses a webhook that is blank, not a URL or not allowed, and settings GitLab does not take, with GitLab's messages", async () => {
    const { ctx, reference } = await projectWithOwner();
    const refused = async (attributes: Parameters<typeof saveIntegration>[3]) => {
      const error = await apiFailure(saveIntegration(ctx, reference, "mattermost", attributes));
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).errors;
    };
    expect(await refused({ webhook: "" })).toEqual({ webhook: ["can't be blank"] });
    expect(await refused({ webhook: "not a url" })).toEqual({ webhook: ["must be a valid URL"] });
    expect(await refused({ webhook: "ftp://example.com/hook" })).toEqual({ webhook: ["is blocked: Only allowed schemes are http, https"] });
    expect(await refused({ webhook: "https://user:pass@example.com/hook" })).toEqual({ webhook: ["is blocked: Credentials in the URL are not allowed"] });
    await allowLocalNetwork(false);
    try {
      expect(await refused({ webhook: "http://127.0.0.1:9/hook" })).toEqual({ webhook: ["is blocked: Requests to localhost are not allowed"] });
    } finally {
      await allowLocalNetwork(true);
    }
    expect(await refused({ webhook: "https://example.com/h", branches_to_be_notified: "some", labels_to_be_notified_behavior: "most" })).toEqual({
      branches_to_be_notified: ["is not included in the list"],
      labels_to_be_notified_behavior: ["is not included in the list"],
    });
    const eleven = Array.from({ length: 11 }, (_, index) => `#c${index}`).join(",");
    expect(await refused({ webhook: "https://example.com/h", note_channel: eleven })).toEqual({
      note_channel: ["cannot have more than 10 channels"],
      confidential_note_channel: ["cannot have more than 10 channels"],
    });
  });

  it("writes one message per active integration that takes the event, in the change's transaction, and nothing for the others", async () => {
    const { owner, ctx, view, reference } = await projectWithOwner();
    const slack = await saveIntegration(ctx, reference, "slack", { webhook: "https://hooks.slack.com/services/a", channel: "#general", issue_channel: "#dev, #ops" });
    const discord = await saveIntegration(ctx, reference, "discord", { webhook: "https://discord.com/api/webhooks/1/x" });
    const teamsOff = await saveIntegration(ctx, reference, "microsoft_teams", { webhook: "https://outlook.office.com/webhook/x", issues_events: false });
    const chatOff = await saveIntegration(ctx, reference, "hangouts_chat", { webhook: "https://chat.googleapis.com/v1/spaces/x" });
    await disableIntegration(ctx, reference, "hangouts_chat");
    const ids = [slack, discord, teamsOff, chatOff].map(({ integration }) => integration.id);

    const issue = await createIssue(ctx, reference, { title: "Login broken", description: "See [logs](https://logs.example.com)" });
    const opened = await waiting(ids);
    expect(opened.map((message) => [message.integrationId, message.event, message.orderingKey])).toEqual([
      [slack.integration.id, "issue", `chat_notification:${slack.integration.id}`],
      [slack.integration.id, "issue", `chat_notification:${slack.integration.id}`],
      [discord.integration.id, "issue", `chat_notification:${discord.integration.id}`],
    ]);
    const issueUrl = `${env.EXTERNAL_URL}/${view.namespace.path}/${view.project.path}/-/issues/${issue.issue.iid}`;
    const projectLink = `<${env.EXTERNAL_URL}/${view.namespace.path}/${view.project.path}|${view.namespace.name} / ${view.project.name}>`;
    expect(opened.slice(0, 2).map(slackPayload)).toEqual(
      ["#dev", "#ops"].map((channel) => ({
        channel,
        attachments: [{ title: `#${issue.issue.iid} Login broken`, title_link: issueUrl, text: "See <https://logs.example.com|logs>", color: "#C95823" }],
        fallback: expect.any(String),
        text: `[${projectLink}] Issue <${issueUrl}|#${issue.issue.iid} Login broken> opened by ${owner.name} (${owner.username})`,
      })),
    );
    expect(opened[2]!.request.contentType).toBe("application/json");

    // An edit sends nothing (GitLab sends messages only for opening, closing and reopening); a close does.
    await updateIssue(ctx, reference, issue.issue.iid, { title: "Login broken on main" });
    expect(await waiting(ids)).toHaveLength(3);
    await updateIssue(userContext(handle.db, owner), reference, issue.issue.iid, { stateEvent: "close" });
    const afterClose = await waiting(ids);
    expect(afterClose).toHaveLength(6);
    expect(slackPayload(afterClose[3]!).text).toMatch(new RegExp(`closed by ${owner.name} \\(${owner.username}\\)$`));

    // A confidential issue goes to the issue channels (its own unset), and to Teams, whose toggle for it is on; a
    // comment to the default channel.
    await createIssue(ctx, reference, { title: "Secret", confidential: true });
    await createNote(ctx, reference, issue.issue.iid, { body: "Fixed by [this](https://x.io)" });
    const latest = (await waiting(ids)).slice(6);
    expect(latest.map((message) => [message.integrationId, message.event])).toEqual([
      [slack.integration.id, "confidential_issue"],
      [slack.integration.id, "confidential_issue"],
      [discord.integration.id, "confidential_issue"],
      [teamsOff.integration.id, "confidential_issue"],
      [slack.integration.id, "note"],
      [discord.integration.id, "note"],
      [teamsOff.integration.id, "note"],
    ]);
    expect(slackPayload(latest[4]!)).toMatchObject({ channel: "#general", attachments: [{ text: "Fixed by <https://x.io|this>", color: "#334455" }] });

    // A change that rolls back writes nothing.
    await expect(
      handle.db.transaction(async (tx) => {
        await enqueueChatNotifications(tx, { view, notification: { event: "note", data: { user: { name: "A", username: "a", avatar_url: null }, object_attributes: { note: "x", url: "u" }, issue: { iid: 1, title: "t", labels: [] } } }, now: new Date() });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await waiting(ids)).toHaveLength(13);
  });

  it("filters issues and comments by labels (any or all of them), and pushes by branch", async () => {
    const { owner, ctx, view, reference } = await projectWithOwner();
    const any = await saveIntegration(ctx, reference, "slack", { webhook: "https://hooks.slack.com/services/any", labels_to_be_notified: "~bug, ~backend" });
    const all = await saveIntegration(ctx, reference, "mattermost", { webhook: "https://mattermost.example.com/hooks/all", labels_to_be_notified: "bug,backend", labels_to_be_notified_behavior: "match_all", branches_to_be_notified: "all" });
    const ids = [any.integration.id, all.integration.id];

    await createIssue(ctx, reference, { title: "Unlabelled" });
    const bug = await createIssue(ctx, reference, { title: "Bug only", labels: ["bug"] });
    await createIssue(ctx, reference, { title: "Both", labels: ["bug", "backend", "ui"] });
    await createNote(ctx, reference, bug.issue.iid, { body: "On a bug" });
    expect((await waiting(ids)).map((message) => [message.integrationId, message.event, (slackPayload(message).text as string).includes("Both")])).toEqual([
      [any.integration.id, "issue", false],
      [any.integration.id, "issue", true],
      [all.integration.id, "issue", true],
      [any.integration.id, "note", false],
    ]);

    // `default` sends pushes to the default branch and every tag; `all` every branch too.
    await handle.db.delete(outboxMessages).where(eq(outboxMessages.topic, chatNotificationTopic));
    const heads = await pushBranches(view.project.id, { main: 1, feature: 1 });
    await recordPushEvents(handle.db, {
      projectId: view.project.id,
      authorId: owner.id,
      repository: repositoryPath(view.project.id),
      updates: [...heads].map(([branch, sha]) => ({ oldSha: zero, newSha: sha, ref: `refs/heads/${branch}` })),
      refsBefore: new Map(),
      now: new Date(),
    });
    const pushes = await waiting(ids);
    const branchOf = (message: ChatDelivery) => /commits\/([a-z]+)\|/.exec(slackPayload(message).text as string)![1];
    expect(pushes.map((message) => [message.integrationId, message.event, branchOf(message)])).toEqual([
      [any.integration.id, "push", "main"],
      [all.integration.id, "push", "main"],
      [all.integration.id, "push", "feature"],
    ]);
    expect(slackPayload(pushes[0]!)).toMatchObject({ text: `${owner.name} pushed new branch <${env.EXTERNAL_URL}/${view.namespace.path}/${view.project.path}/-/commits/main|main> to <${env.EXTERNAL_URL}/${view.namespace.path}/${view.project.path}|${view.namespace.name} / ${view.project.name}>`, attachments: [] });
  });

  it("sends a new alert to Slack integrations that take alerts, with its details link; repeats send nothing", async () => {
    const { ctx, view, reference } = await projectWithOwner();
    const slack = await saveIntegration(ctx, reference, "slack", { webhook: "https://hooks.slack.com/services/alerts", alert_channel: "#alerts", incident_events: true });
    const quiet = await saveIntegration(ctx, reference, "mattermost", { webhook: "https://mattermost.example.com/hooks/q" });
    const endpoint = await createAlertIntegration(ctx, reference, { name: "Monitoring", type: "http", active: true });
    await sendTestAlert(ctx, reference, endpoint.integration.id, { title: "Disk full", fingerprint: "disk", severity: "critical", start_time: "2024-03-05T14:07:00Z" });
    await sendTestAlert(ctx, reference, endpoint.integration.id, { title: "Disk full", fingerprint: "disk", severity: "critical" });
    const messages = await waiting([slack.integration.id, quiet.integration.id]);
    expect(messages.map((message) => [message.integrationId, message.event])).toEqual([[slack.integration.id, "alert"]]);
    const payload = slackPayload(messages[0]!);
    expect(payload).toMatchObject({
      channel: "#alerts",
      attachments: [{ title: "Disk full", title_link: `${env.EXTERNAL_URL}/${view.namespace.path}/${view.project.path}/-/alert_management/1/details` }],
      fallback: `Alert firing in ${view.namespace.name} / ${view.project.name}`,
      text: `Alert firing in ${view.namespace.name} / ${view.project.name}`,
    });
    const fields = (payload.attachments as { fields: { title: string; value: unknown }[] }[])[0]!.fields;
    expect(fields.map((field) => field.value)).toEqual(["Critical", 1, "Triggered", "March 5th, 2024  2:07PM UTC"]);

    // With incidents on, the incident the next alert opens is an issue for both and an incident for Slack.
    await updateAlertSettings(ctx, reference, { createIncident: true });
    await sendTestAlert(ctx, reference, endpoint.integration.id, { title: "CPU hot", fingerprint: "cpu" });
    expect((await waiting([slack.integration.id, quiet.integration.id])).slice(1).map((message) => [message.integrationId, message.event])).toEqual([
      [slack.integration.id, "alert"],
      [slack.integration.id, "issue"],
      [quiet.integration.id, "issue"],
      [slack.integration.id, "incident"],
    ]);
  });

  it("the worker posts each service's request, retries what failed on the receiver's side, and gives up on a refusal", async () => {
    const receiver = await startHookReceiver({ statuses: [500, 200, 404] });
    try {
      const { ctx, reference } = await projectWithOwner();
      const chat = await saveIntegration(ctx, reference, "hangouts_chat", { webhook: `${receiver.url}/v1/spaces/x?key=k` });
      await createIssue(ctx, reference, { title: "First" });
      await createIssue(ctx, reference, { title: "Second" });
      await deliverAll();
      // The first answer was a 500: the message waits for its retry, and the one behind it with it.
      expect(receiver.received).toHaveLength(1);
      const [retry] = await handle.db.select().from(outboxMessages).where(eq(outboxMessages.orderingKey, `chat_notification:${chat.integration.id}`)).orderBy(outboxMessages.id);
      expect(retry).toMatchObject({ attempts: 1, lastError: "HTTP 500: {\"received\":1}" });
      await handle.db.update(outboxMessages).set({ availableAt: new Date(0) }).where(eq(outboxMessages.id, retry!.id));
      await deliverAll();
      expect(receiver.received).toHaveLength(3);
      expect(receiver.received.map((request) => request.path)).toEqual(Array(3).fill("/v1/spaces/x?key=k&messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD"));
      expect(receiver.received[1]!.headers["content-type"]).toBe("application/json");
      expect(receiver.received[1]!.headers["user-agent"]).toMatch(/^GitLab\/\d+\.\d+\.\d+$/);
      expect((receiver.received[1]!.body as { text: string }).text).toContain("First> opened by");
      // The 404 is not retried: nothing waits.
      expect(await waiting([chat.integration.id])).toEqual([]);

      // A turned-off integration's messages are dropped unsent.
      await createIssue(ctx, reference, { title: "Third" });
      await disableIntegration(ctx, reference, "hangouts_chat");
      await deliverAll();
      expect(receiver.received).toHaveLength(3);
    } finally {
      await receiver.close();
    }
  });

  it("Test settings sends the push sample with the settings as given, and says what the receiver answered", async () => {
    const receiver = await startHookReceiver({ statuses: [200, 200, 403] });
    try {
      const { owner, ctx, view, reference } = await projectWithOwner();
      expect(await apiFailure(testIntegrationSettings(ctx, reference, "slack", { webhook: `${receiver.url}/slack` }))).toEqual(new UnprocessableError("Ensure the project has at least one commit."));
      const heads = await pushBranches(view.project.id, { main: 2 });
      expect(await testIntegrationSettings(ctx, reference, "slack", { webhook: `${receiver.url}/slack`, channel: "#a,#b", username: "bot" })).toBe("Connection successful.");
      expect(receiver.received.map((request) => request.path)).toEqual(["/slack", "/slack"]);
      const payload = JSON.parse(new URLSearchParams(receiver.received[0]!.body as string).get("payload")!) as Record<string, unknown>;
      const head = heads.get("main")!;
      expect(payload).toMatchObject({ channel: "#a", username: "bot", text: expect.stringContaining(`${owner.name} pushed to branch <${env.EXTERNAL_URL}/${view.namespace.path}/${view.project.path}/-/commits/main|main>`) });
      expect((payload.attachments as { text: string }[])[0]!.text).toContain(`|${head.slice(0, 8)}>: main commit 2 - T`);
      // Nothing was saved.
      expect(await apiFailure(getIntegration(ctx, reference, "slack"))).toBeInstanceOf(NotFoundError);
      const failure = await apiFailure(testIntegrationSettings(ctx, reference, "discord", { webhook: `${receiver.url}/discord` }));
      expect(failure).toEqual(new UnprocessableError('Connection failed. Check your integration settings. HTTP 403: {"received":3}'));
      const unreachable = await apiFailure(testIntegrationSettings(ctx, reference, "discord", { webhook: "http://127.0.0.1:9/discord" }));
      expect(unreachable.message).toBe("Connection failed. Check your integration settings. Connection refused");
      // Five tests a minute per project and person, as GitLab's project_testing_integration: the sixth is refused unsent.
      await apiFailure(testIntegrationSettings(ctx, reference, "slack", { webhook: `${receiver.url}/slack` }));
      const before = receiver.received.length;
      const limited = await apiFailure(testIntegrationSettings(ctx, reference, "slack", { webhook: `${receiver.url}/slack` }));
      expect(limited).toBeInstanceOf(TooManyRequestsError);
      expect(receiver.received).toHaveLength(before);
    } finally {
      await receiver.close();
    }
  });
});
