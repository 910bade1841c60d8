import { describe, expect, it } from "vitest";
import { chatRequests } from "./formats";
import { alertMessage, issueMessage, noteMessage, pushMessage } from "./messages";

const options = { projectName: "Group / Project", projectUrl: "http://example.com/group/project", markdown: false };
const user = { name: "Test User", username: "test.user", avatar_url: "http://example.com/-/avatars/1" };
const opened = {
  object_kind: "issue",
  user,
  labels: [],
  object_attributes: { title: "Broken", iid: 3, url: "http://example.com/group/project/-/issues/3", action: "open", state: "opened", description: "Steps: [here](https://x.io)" },
};
const now = new Date("2024-05-01T12:34:56.789Z");

function slackPayload(body: string): unknown {
  return JSON.parse(new URLSearchParams(body).get("payload")!);
}

describe("Slack and Mattermost", () => {
  it("post slack-notifier's form: the text, the attachments and the fallback, one post per channel with the username", () => {
    const requests = chatRequests("slack", issueMessage(opened, options), { channels: ["#dev", "#ops"], username: "GitLab", now });
    expect(requests.map((request) => request.contentType)).toEqual(["application/x-www-form-urlencoded", "application/x-www-form-urlencoded"]);
    const text = "[<http://example.com/group/project|Group / Project>] Issue <http://example.com/group/project/-/issues/3|#3 Broken> opened by Test User (test.user)";
    expect(requests.map((request) => slackPayload(request.body))).toEqual(
      ["#dev", "#ops"].map((channel) => ({
        channel,
        username: "GitLab",
        attachments: [{ title: "#3 Broken", title_link: "http://example.com/group/project/-/issues/3", text: "Steps: <https://x.io|here>", color: "#C95823" }],
        fallback: text,
        text,
      })),
    );
  });

  it("without channels, one post that names none", () => {
    const [request, ...more] = chatRequests("mattermost", noteMessage({ user, object_attributes: { note: "Hi", url: "http://n" }, issue: { iid: 3, title: "Broken", labels: [] } }, options), {
      channels: [],
      username: null,
      now,
    });
    expect(more).toEqual([]);
    expect(Object.keys(slackPayload(request!.body) as object)).toEqual(["attachments", "fallback", "text"]);
  });
});

describe("Discord", () => {
  it("posts an embed: the colour of the message, the author, and the line and details as Markdown", () => {
    const message = issueMessage(opened, { ...options, markdown: true });
    const [request] = chatRequests("discord", message, { channels: [], username: null, now });
    expect(request!.contentType).toBe("application/json");
    expect(JSON.parse(request!.body)).toEqual({
      content: "",
      embeds: [
        {
          color: 0xc95823,
          timestamp: "2024-05-01T12:34:56Z",
          author: { name: "test.user", icon_url: "http://example.com/-/avatars/1" },
          description:
            "[[Group / Project](http://example.com/group/project)] Issue [#3 Broken](http://example.com/group/project/-/issues/3) opened by Test User (test.user)\nSteps: [here](https://x.io)",
        },
      ],
    });
  });

  it("joins GitLab's listed entries, and a comment has GitLab's orange", () => {
    const message = noteMessage({ user, object_attributes: { note: "Jobs: build\n - failed\n\n\nend", url: "http://n" }, issue: { iid: 3, title: "Broken", labels: [] } }, { ...options, markdown: true });
    const body = JSON.parse(chatRequests("discord", message, { channels: [], username: null, now })[0]!.body) as { embeds: { color: number; description: string }[] };
    expect(body.embeds[0]!.color).toBe(0xfc6d26);
    expect(body.embeds[0]!.description).toBe(
      "Test User (test.user) [commented on issue #3](http://n) in [Group / Project](http://example.com/group/project): *Broken*\nJobs build - failed\nend",
    );
  });
});

describe("Microsoft Teams", () => {
  it("posts GitLab's Adaptive Card: the project, the activity and the details", () => {
    const message = pushMessage(
      {
        before: "a".repeat(40),
        after: "b".repeat(40),
        ref: "refs/heads/main",
        user_name: "Test User",
        user_avatar: "http://example.com/-/avatars/1",
        commits: [{ id: "b".repeat(40), title: "Fix", url: "http://example.com/c", author: { name: "Ann" } }],
      },
      { ...options, markdown: true },
    );
    const [request] = chatRequests("microsoft_teams", message, { channels: [], username: null, now });
    const sent = JSON.parse(request!.body) as { type: string; attachments: { contentType: string; content: { type: string; version: string; body: TextBlock[] } }[] };
    type TextBlock = { type: string; text?: string; columns?: { items: { type: string; text?: string; url?: string }[] }[] };
    expect(sent.type).toBe("message");
    expect(sent.attachments.map((attachment) => [attachment.contentType, attachment.content.type, attachment.content.version])).toEqual([
      ["application/vnd.microsoft.card.adaptive", "AdaptiveCard", "1.0"],
    ]);
    // The project, the activity (the pusher's avatar, then its title, subtitle and text), and the commits.
    const [project, activity, details] = sent.attachments[0]!.content.body;
    expect(project).toMatchObject({ type: "TextBlock", text: "Group / Project", weight: "bolder" });
    expect(activity!.columns!.map((column) => column.items.map((item) => item.url ?? item.text))).toEqual([
      ["http://example.com/-/avatars/1"],
      [
        "Test User pushed to branch [main](http://example.com/group/project/-/commits/main)",
        "in [Group / Project](http://example.com/group/project)",
        `[Compare changes](http://example.com/group/project/-/compare/${"a".repeat(40)}...${"b".repeat(40)})`,
      ],
    ]);
    expect(details).toEqual({ type: "TextBlock", text: "[bbbbbbbb](http://example.com/c): Fix - Ann", wrap: true });
  });

  it("sends nothing for an alert, which has no card", () => {
    const alert = { object_attributes: { title: "Down", url: "http://a", severity: "high", events: 1, status: "triggered", started_at: now.toISOString() } };
    expect(chatRequests("microsoft_teams", alertMessage(alert, options), { channels: [], username: null, now })).toEqual([]);
  });
});

describe("Google Chat", () => {
  it("posts the line with the first attachment's linked title and text, in the subject's thread", () => {
    const [request] = chatRequests("hangouts_chat", issueMessage(opened, options), { channels: ["#ignored"], username: "ignored", now });
    expect(request!.query).toEqual({ messageReplyOption: "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD" });
    expect(JSON.parse(request!.body)).toEqual({
      text: [
        "[<http://example.com/group/project|Group / Project>] Issue <http://example.com/group/project/-/issues/3|#3 Broken> opened by Test User (test.user)",
        "<http://example.com/group/project/-/issues/3|#3 Broken>",
        "Steps: <https://x.io|here>",
      ].join("\n"),
      thread: { threadKey: "issue Group / Project#3" },
    });
  });

  it("a closed issue is its line alone", () => {
    const closed = { ...opened, object_attributes: { ...opened.object_attributes, action: "close", state: "closed" } };
    const body = JSON.parse(chatRequests("hangouts_chat", issueMessage(closed, options), { channels: [], username: null, now })[0]!.body) as { text: string };
    expect(body.text).toBe("[<http://example.com/group/project|Group / Project>] Issue <http://example.com/group/project/-/issues/3|#3 Broken> closed by Test User (test.user)");
  });
});
