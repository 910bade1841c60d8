import { expect, test, type APIRequestContext } from "@playwright/test";
import { startHookReceiver, type ReceivedHook } from "../../lib/testing/hook-receiver";
import { bearer, createIntegration, postAlert, receiverPath } from "../support/alerts";
import { addMember, allowLocalRequestsFromWebHooks, asToken, createProject, createUser, expectJson, type CreatedUser } from "../support/api";
import { GitSandbox, pushMain, remoteUrl } from "../support/git";
import { requirePythonGitlab, runPythonGitlab } from "../support/python-gitlab";

const services = ["slack", "mattermost", "discord", "microsoft-teams", "hangouts-chat"] as const;

async function put(request: APIRequestContext, token: string, path: string, data: Record<string, unknown>) {
  return request.put(`/api/v4${path}`, { headers: asToken(token), data });
}

/** Slack's and Mattermost's messages are slack-notifier's form posts: `payload=<json>`. */
function slackPayload(received: ReceivedHook): unknown {
  expect(received.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  return JSON.parse(new URLSearchParams(received.body as string).get("payload")!);
}

interface ProjectNames {
  name_with_namespace: string;
  web_url: string;
}

test.describe("chat integrations", () => {
  test("each service gets GitLab's message for an issue, a comment, pushes and a new alert, with links back", async ({ request, baseURL }) => {
    test.setTimeout(120_000);
    // The receiver is local, which the instance allows for the suites' receivers.
    await allowLocalRequestsFromWebHooks(request);
    const receiver = await startHookReceiver();
    const git = new GitSandbox();
    try {
      const owner = await createUser(request);
      const project = await createProject(request, owner.token);
      for (const service of services) {
        const extra = service === "slack" ? { channel: "#dev", username: "GitLab", alert_channel: "#alerts" } : {};
        const saved = await put(request, owner.token, `/projects/${project.id}/integrations/${service}`, { webhook: `${receiver.url}/${service}`, ...extra });
        expect(saved.status(), await saved.text()).toBe(200);
      }
      const names = (await (await request.get(`/api/v4/projects/${project.id}`, { headers: asToken(owner.token) })).json()) as ProjectNames;
      const user = `User ${owner.username}`;
      const avatar = `${baseURL}/-/avatars/${owner.id}`;

      const issueResponse = await request.post(`/api/v4/projects/${project.id}/issues`, {
        headers: asToken(owner.token),
        data: { title: "Checkout fails", description: "See [the logs](https://logs.example.com/x)" },
      });
      const issue = (await issueResponse.json()) as { iid: number; web_url: string };
      const noteResponse = await request.post(`/api/v4/projects/${project.id}/issues/${issue.iid}/notes`, { headers: asToken(owner.token), data: { body: "Fixed in **main**" } });
      const note = (await noteResponse.json()) as { id: number };
      const noteUrl = `${issue.web_url}#note_${note.id}`;
      const work = await pushMain(git, remoteUrl(baseURL!, project.path_with_namespace, { password: owner.token }), 1);
      const first = await git.ok(["rev-parse", "HEAD"], work);
      const second = await git.commit(work, "file.txt", "2\n", "Handle empty carts");
      await git.ok(["push", "--quiet", "origin", "main"], work);
      const alerts = await createIntegration(request, owner.token, project.id);
      const alert = await postAlert(request, receiverPath(alerts), { title: "Checkout errors", severity: "critical", start_time: "2024-03-05T14:07:00Z" }, bearer(alerts.token));
      expect(alert.status(), await alert.text()).toBe(200);

      const received = await receiver.waitFor(4 * services.length + 1, 60_000);
      const to = (service: string) => received.filter((request) => request.path.startsWith(`/${service}`));

      // Slack: the channel and username set, Slack's links, the issue's description and the commits attached.
      const projectLink = `<${names.web_url}|${names.name_with_namespace}>`;
      const issueText = `[${projectLink}] Issue <${issue.web_url}|#${issue.iid} Checkout fails> opened by ${user} (${owner.username})`;
      const noteText = `${user} (${owner.username}) <${noteUrl}|commented on issue #${issue.iid}> in ${projectLink}: *Checkout fails*`;
      const newBranchText = `${user} pushed new branch <${names.web_url}/-/commits/main|main> to ${projectLink}`;
      const compare = `${names.web_url}/-/compare/${first}...${second}`;
      const pushText = `${user} pushed to branch <${names.web_url}/-/commits/main|main> of ${projectLink} (<${compare}|Compare changes>)`;
      const commitText = `<${names.web_url}/-/commit/${second}|${second.slice(0, 8)}>: Handle empty carts - E2E Author`;
      const alertText = `Alert firing in ${names.name_with_namespace}`;
      expect(to("slack").map(slackPayload)).toEqual([
        {
          channel: "#dev",
          username: "GitLab",
          attachments: [{ title: `#${issue.iid} Checkout fails`, title_link: issue.web_url, text: "See <https://logs.example.com/x|the logs>", color: "#C95823" }],
          fallback: issueText,
          text: issueText,
        },
        { channel: "#dev", username: "GitLab", attachments: [{ text: "Fixed in **main**", color: "#334455" }], fallback: noteText, text: noteText },
        { channel: "#dev", username: "GitLab", attachments: [], fallback: newBranchText, text: newBranchText },
        { channel: "#dev", username: "GitLab", attachments: [{ text: commitText, color: "#334455" }], fallback: pushText, text: pushText },
        {
          channel: "#alerts",
          username: "GitLab",
          attachments: [
            {
              title: "Checkout errors",
              title_link: `${names.web_url}/-/alert_management/1/details`,
              color: "#C95823",
              fields: [
                { title: "Severity", value: "Critical", short: true },
                { title: "Events", value: 1, short: true },
                { title: "Status", value: "Triggered", short: true },
                { title: "Start time", value: "March 5th, 2024  2:07PM UTC", short: true },
              ],
            },
          ],
          fallback: alertText,
          text: alertText,
        },
      ]);
      // Mattermost: the same messages without the settings Slack has; no alerts (GitLab sends them to Slack only).
      expect(to("mattermost").map(slackPayload)).toEqual([
        expect.objectContaining({ text: issueText }),
        expect.objectContaining({ text: noteText }),
        expect.objectContaining({ text: newBranchText }),
        { attachments: [{ text: commitText, color: "#334455" }], fallback: pushText, text: pushText },
      ]);

      // Discord: an embed of Markdown.
      const markdownProject = `[${names.name_with_namespace}](${names.web_url})`;
      const mdIssue = `[${markdownProject}] Issue [#${issue.iid} Checkout fails](${issue.web_url}) opened by ${user} (${owner.username})`;
      const mdNote = `${user} (${owner.username}) [commented on issue #${issue.iid}](${noteUrl}) in ${markdownProject}: *Checkout fails*`;
      const mdNewBranch = `${user} pushed new branch [main](${names.web_url}/-/commits/main) to ${markdownProject}`;
      const mdPush = `${user} pushed to branch [main](${names.web_url}/-/commits/main) of ${markdownProject} ([Compare changes](${compare}))`;
      const mdCommit = `[${second.slice(0, 8)}](${names.web_url}/-/commit/${second}): Handle empty carts - E2E Author`;
      const embed = (color: number, description: string) => ({
        content: "",
        embeds: [{ color, timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), author: { name: owner.username, icon_url: avatar }, description }],
      });
      expect(to("discord").map((request) => request.body)).toEqual([
        embed(0xc95823, `${mdIssue}\nSee [the logs](https://logs.example.com/x)`),
        embed(0xfc6d26, `${mdNote}\nFixed in **main**`),
        { ...embed(0x334455, `${mdNewBranch}\n`), embeds: [expect.objectContaining({ author: { name: user, icon_url: avatar } })] },
        { ...embed(0x334455, `${mdPush}\n${mdCommit}`), embeds: [expect.objectContaining({ author: { name: user, icon_url: avatar }, description: `${mdPush}\n${mdCommit}` })] },
      ]);

      // Microsoft Teams: an Adaptive Card with the activity and the details.
      const card = (title: string, subtitle: string, text: string, details?: string) => ({
        type: "message",
        attachments: [
          {
            contentType: "application/vnd.microsoft.card.adaptive",
            content: {
              type: "AdaptiveCard",
              msteams: { width: "Full" },
              version: "1.0",
              body: [
                { type: "TextBlock", text: names.name_with_namespace, weight: "bolder", size: "medium" },
                {
                  type: "ColumnSet",
                  columns: [
                    { type: "Column", width: "auto", items: [{ type: "Image", url: avatar, size: "medium" }] },
                    {
                      type: "Column",
                      width: "stretch",
                      items: [
                        { type: "TextBlock", text: title, weight: "bolder", wrap: true },
                        { type: "TextBlock", text: subtitle, isSubtle: true, wrap: true },
                        { type: "TextBlock", text, wrap: true },
                      ],
                    },
                  ],
                },
                ...(details ? [{ type: "TextBlock", text: details, wrap: true }] : []),
              ],
            },
          },
        ],
      });
      expect(to("microsoft-teams").map((request) => request.body)).toEqual([
        card(`Issue opened by ${user} (${owner.username})`, `in ${markdownProject}`, `[#${issue.iid} Checkout fails](${issue.web_url})`, "See [the logs](https://logs.example.com/x)"),
        card(`${user} (${owner.username}) [commented on issue #${issue.iid}](${noteUrl})`, `in ${markdownProject}`, "Checkout fails", "Fixed in **main**"),
        card(`${user} pushed new branch [main](${names.web_url}/-/commits/main)`, `in ${markdownProject}`, `[Compare changes](${names.web_url}/-/compare/${"0".repeat(40)}...${first})`),
        card(`${user} pushed to branch [main](${names.web_url}/-/commits/main)`, `in ${markdownProject}`, `[Compare changes](${compare})`, mdCommit),
      ]);

      // Google Chat: one text with Slack's links, each subject in a thread of its own.
      const chat = to("hangouts-chat");
      expect(chat.map((request) => request.path)).toEqual(Array(4).fill("/hangouts-chat?messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD"));
      expect(chat.map((request) => request.body)).toEqual([
        { text: `${issueText}\n<${issue.web_url}|#${issue.iid} Checkout fails>\nSee <https://logs.example.com/x|the logs>`, thread: { threadKey: `issue ${names.name_with_namespace}#${issue.iid}` } },
        { text: `${noteText}\nFixed in **main**`, thread: { threadKey: `issue #${issue.iid}` } },
        { text: newBranchText, thread: { threadKey: `push ${names.name_with_namespace}_main` } },
        { text: `${pushText}\n${commitText}`, thread: { threadKey: `push ${names.name_with_namespace}_main` } },
      ]);
      for (const request of received) expect(request.headers["user-agent"]).toMatch(/^GitLab\/\d+\.\d+\.\d+$/);
    } finally {
      git.dispose();
      await receiver.close();
    }
  });

  test("the API sets integrations up, shows them without their webhook, turns them off, and refuses what GitLab refuses", async ({ request }) => {
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    const base = `/projects/${project.id}`;
    await expectJson(await request.get(`/api/v4${base}/integrations`, { headers: asToken(owner.token) }), 200, []);
    await expectJson(await put(request, owner.token, `${base}/integrations/slack`, { channel: "#x" }), 400, { error: "webhook is missing" });
    await expectJson(await put(request, owner.token, `${base}/integrations/slack`, { webhook: "" }), 400, { message: { webhook: ["can't be blank"] } });
    await expectJson(await put(request, owner.token, `${base}/integrations/slack`, { webhook: "nonsense" }), 400, { message: { webhook: ["must be a valid URL"] } });
    await expectJson(await put(request, owner.token, `${base}/integrations/slack`, { webhook: "https://hooks.slack.com/services/x", branches_to_be_notified: "some" }), 400, {
      message: { branches_to_be_notified: ["is not included in the list"] },
    });
    await expectJson(await put(request, owner.token, `${base}/integrations/slack`, { webhook: "https://hooks.slack.com/services/x", push_events: "perhaps" }), 400, {
      error: "push_events is invalid",
    });
    await expectJson(await put(request, owner.token, `${base}/integrations/jira`, { webhook: "https://example.com" }), 404, { error: "404 Not Found" });
    await expectJson(await request.get(`/api/v4${base}/integrations/jira`, { headers: asToken(owner.token) }), 400, { error: "slug does not have a valid value" });
    await expectJson(await request.get(`/api/v4${base}/integrations/discord`, { headers: asToken(owner.token) }), 404, { message: "404 Integration Not Found" });

    const saved = await put(request, owner.token, `${base}/integrations/microsoft-teams`, { webhook: "https://outlook.office.com/webhook/secret-part", note_events: false, branches_to_be_notified: "all" });
    expect(saved.status(), await saved.text()).toBe(200);
    const entity = (await saved.json()) as Record<string, unknown>;
    const basic = {
      id: expect.any(Number),
      title: "Microsoft Teams notifications",
      slug: "microsoft-teams",
      created_at: expect.any(String),
      updated_at: expect.any(String),
      active: true,
      commit_events: true,
      push_events: true,
      issues_events: true,
      incident_events: false,
      alert_events: true,
      confidential_issues_events: true,
      merge_requests_events: true,
      tag_push_events: true,
      deployment_events: false,
      note_events: false,
      confidential_note_events: true,
      pipeline_events: true,
      wiki_page_events: true,
      job_events: true,
      comment_on_event_enabled: true,
      inherited: false,
    };
    expect(entity).toEqual({ ...basic, properties: { notify_only_broken_pipelines: true, branches_to_be_notified: "all" } });
    expect(JSON.stringify(entity)).not.toContain("secret-part");
    await expectJson(await request.get(`/api/v4${base}/integrations/microsoft-teams`, { headers: asToken(owner.token) }), 200, entity);
    await expectJson(await request.get(`/api/v4${base}/services/microsoft-teams`, { headers: asToken(owner.token) }), 200, entity);
    await expectJson(await request.get(`/api/v4${base}/integrations`, { headers: asToken(owner.token) }), 200, [{ ...basic, created_at: entity.created_at, updated_at: entity.updated_at, id: entity.id }]);

    const removed = await request.delete(`/api/v4${base}/services/microsoft-teams`, { headers: asToken(owner.token) });
    expect(removed.status()).toBe(204);
    await expectJson(await request.get(`/api/v4${base}/integrations`, { headers: asToken(owner.token) }), 200, []);
    const off = (await (await request.get(`/api/v4${base}/integrations/microsoft-teams`, { headers: asToken(owner.token) })).json()) as Record<string, unknown>;
    expect(off).toMatchObject({ active: false, note_events: false, properties: { notify_only_broken_pipelines: null, branches_to_be_notified: null } });
  });

  test("only Maintainers reach the API: 401 without credentials (GitLab's `authenticate!`), 404 for those who cannot see the project, 403 below Maintainer", async ({ request }) => {
    const owner = await createUser(request);
    const developer: CreatedUser = await createUser(request);
    const stranger = await createUser(request);
    const project = await createProject(request, owner.token);
    await addMember(request, owner.token, project.id, developer.id, 30);
    const slack = `/api/v4/projects/${project.id}/integrations/slack`;
    expect((await put(request, owner.token, `/projects/${project.id}/integrations/slack`, { webhook: "https://hooks.slack.com/services/x" })).status()).toBe(200);
    await expectJson(await request.get(slack), 401, { message: "401 Unauthorized" });
    await expectJson(await request.get(slack, { headers: asToken(stranger.token) }), 404, { message: "404 Project Not Found" });
    await expectJson(await request.get(slack, { headers: asToken(developer.token) }), 403, { message: "403 Forbidden" });
    await expectJson(await request.put(slack, { headers: asToken(developer.token), data: { webhook: "https://example.com/mine" } }), 403, { message: "403 Forbidden" });
    await expectJson(await request.delete(slack, { headers: asToken(developer.token) }), 403, { message: "403 Forbidden" });
    await expectJson(await request.get(`/api/v4/projects/${project.id}/integrations`, { headers: asToken(developer.token) }), 403, { message: "403 Forbidden" });
  });

  test("python-gitlab reads an integration and saves it back", async ({ request, baseURL }) => {
    requirePythonGitlab();
    const owner = await createUser(request);
    const project = await createProject(request, owner.token);
    expect((await put(request, owner.token, `/projects/${project.id}/integrations/slack`, { webhook: "https://hooks.slack.com/services/first", channel: "#general" })).status()).toBe(200);
    const out = runPythonGitlab(
      [
        "project = gl.projects.get(args['project'])",
        "slack = project.integrations.get('slack')",
        "out['read'] = [slack.slug, slack.title, slack.active, slack.properties['channel'], 'webhook' in slack.properties]",
        "slack.webhook = 'https://hooks.slack.com/services/second'",
        "slack.push_events = False",
        "slack.note_channel = '#comments'",
        "slack.save()",
        "again = project.integrations.get('slack')",
        "out['saved'] = [again.push_events, again.properties['note_channel'], again.properties['channel']]",
        "out['listed'] = [integration.slug for integration in project.integrations.list()]",
      ].join("\n"),
      { baseURL: baseURL!, token: owner.token, args: { project: project.id } },
    );
    expect(out).toEqual({ read: ["slack", "Slack notifications", true, "#general", false], saved: [false, "#comments", "#general"], listed: ["slack"] });
  });
});
