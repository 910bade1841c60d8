import { describe, expect, it } from "vitest";
import {
  alertMessage,
  alertStartTime,
  issueMessage,
  noteMessage,
  pushMessage,
  type IssueMessageData,
  type NoteMessageData,
  type PushMessageData,
  type SlackAttachment,
} from "./messages";

// The expected texts are those of GitLab's specs (spec/models/integrations/chat_message/*_spec.rb).
const plain = { projectName: "project_name", projectUrl: "http://somewhere.com", markdown: false };
const markdown = { ...plain, markdown: true };
const user = { name: "Test User", username: "test.user", avatar_url: "http://someavatar.com" };
const card = (title: string, subtitle: string, text: string, image: string) => ({ title, subtitle, text, image });

describe("IssueMessage", () => {
  const issue = (attributes: Partial<IssueMessageData["object_attributes"]> = {}, objectKind = "issue"): IssueMessageData => ({
    object_kind: objectKind,
    user,
    labels: [],
    object_attributes: {
      title: "Title",
      iid: 100,
      url: "http://url.com",
      action: "open",
      state: "opened",
      description: "issue description <http://custom-url.com|CLICK HERE>",
      ...attributes,
    },
  });

  it("opened, without Markdown: Slack's links, and the description (its links made inert) attached", () => {
    const message = issueMessage(issue(), plain);
    expect(message.pretext).toBe("[<http://somewhere.com|project_name>] Issue <http://url.com|#100 Title> opened by Test User (test.user)");
    expect(message.fallback).toBe(message.pretext);
    expect(message.attachments).toEqual([
      { title: "#100 Title", title_link: "http://url.com", text: "issue description &lt;http://custom-url.com|CLICK HERE&gt;", color: "#C95823" },
    ]);
    expect(message.color).toBe("#C95823");
    expect(message.threadKey).toBe("issue project_name#100");
  });

  it("a missing description is empty", () => {
    expect(issueMessage(issue({ description: null }), plain).attachments).toEqual([{ title: "#100 Title", title_link: "http://url.com", text: "", color: "#C95823" }]);
  });

  it("closed and reopened carry nothing attached", () => {
    const closed = issueMessage(issue({ action: "close", state: "closed" }), plain);
    expect(closed.pretext).toBe("[<http://somewhere.com|project_name>] Issue <http://url.com|#100 Title> closed by Test User (test.user)");
    expect(closed.attachments).toEqual([]);
    const reopened = issueMessage(issue({ action: "reopen", state: "opened" }), plain);
    expect(reopened.pretext).toBe("[<http://somewhere.com|project_name>] Issue <http://url.com|#100 Title> opened by Test User (test.user)");
    expect(reopened.attachments).toEqual([]);
  });

  it("without a project name, no project part", () => {
    const message = issueMessage(issue(), { ...plain, projectName: "" });
    expect(message.pretext).toBe("Issue <http://url.com|#100 Title> opened by Test User (test.user)");
    expect(message.activity).toEqual(card("Issue opened by Test User (test.user)", "", "[#100 Title](http://url.com)", "http://someavatar.com"));
  });

  it("with Markdown: Markdown links, the description as text, and the activity card", () => {
    const message = issueMessage(issue(), markdown);
    expect(message.pretext).toBe("[[project_name](http://somewhere.com)] Issue [#100 Title](http://url.com) opened by Test User (test.user)");
    expect(message.attachments).toBe("issue description &lt;http://custom-url.com|CLICK HERE&gt;");
    expect(message.activity).toEqual(card("Issue opened by Test User (test.user)", "in [project_name](http://somewhere.com)", "[#100 Title](http://url.com)", "http://someavatar.com"));
    const closed = issueMessage(issue({ action: "close", state: "closed" }), markdown);
    expect(closed.pretext).toBe("[[project_name](http://somewhere.com)] Issue [#100 Title](http://url.com) closed by Test User (test.user)");
    expect(closed.attachments).toEqual([]);
  });

  it("an incident says so, by its type or by the incident event", () => {
    expect(issueMessage(issue({ type: "Incident" }), plain).pretext).toBe(
      "[<http://somewhere.com|project_name>] Incident <http://url.com|#100 Title> opened by Test User (test.user)",
    );
    expect(issueMessage(issue({}, "incident"), plain).activity?.title).toBe("Incident opened by Test User (test.user)");
  });

  it("what users wrote cannot add links to the message", () => {
    const message = issueMessage({ ...issue({ title: "[evil](http://evil) <x|y>" }), user: { ...user, name: "Mal [lory](http://m)" } }, plain);
    expect(message.pretext).toBe("[<http://somewhere.com|project_name>] Issue <http://url.com|#100 evil(http://evil) xy> opened by Mal lory(http://m) (test.user)");
  });
});

describe("NoteMessage", () => {
  const note: NoteMessageData = {
    user: { name: "Test User", username: "test.user", avatar_url: "http://fakeavatar" },
    object_attributes: { note: "comment on an issue", url: "http://url.com" },
    issue: { iid: 20, title: "issue title\ndetails\n", labels: [] },
  };

  it("without Markdown", () => {
    const message = noteMessage(note, plain);
    expect(message.pretext).toBe("Test User (test.user) <http://url.com|commented on issue #20> in <http://somewhere.com|project_name>: *issue title*");
    expect(message.attachments).toEqual([{ text: "comment on an issue", color: "#334455" }]);
    expect(message.color).toBeNull();
    expect(message.threadKey).toBe("issue #20");
  });

  it("with Markdown", () => {
    const message = noteMessage(note, markdown);
    expect(message.pretext).toBe("Test User (test.user) [commented on issue #20](http://url.com) in [project_name](http://somewhere.com): *issue title*");
    expect(message.attachments).toBe("comment on an issue");
    expect(message.activity).toEqual(card("Test User (test.user) [commented on issue #20](http://url.com)", "in [project_name](http://somewhere.com)", "issue title", "http://fakeavatar"));
  });

  it("a comment's links become Slack's, and its uploads absolute", () => {
    const message = noteMessage({ ...note, object_attributes: { ...note.object_attributes, note: "See [docs](https://docs.example.com) ![s](/uploads/x/s.png)" } }, plain);
    expect(message.attachments).toEqual([{ text: "See <https://docs.example.com|docs> http://somewhere.com/uploads/x/s.png", color: "#334455" }]);
  });
});

describe("PushMessage", () => {
  const push = (overrides: Partial<PushMessageData> = {}): PushMessageData => ({
    after: "after",
    before: "before",
    ref: "refs/heads/master",
    user_name: "test.user",
    user_avatar: "http://someavatar.com",
    commits: [],
    ...overrides,
  });
  const pushOptions = { ...plain, projectUrl: "http://url.com" };
  const commits = [
    { title: "message1", url: "http://url1.com", id: "abcdefghijkl", author: { name: "author1" } },
    { title: "message2 w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w ...", url: "http://url2.com", id: "123456789012", author: { name: "author2" } },
  ];
  const zeros = "0".repeat(40);

  it("a push, without Markdown, lists its commits", () => {
    const message = pushMessage(push({ commits }), pushOptions);
    expect(message.pretext).toBe(
      "test.user pushed to branch <http://url.com/-/commits/master|master> of <http://url.com|project_name> (<http://url.com/-/compare/before...after|Compare changes>)",
    );
    expect(message.attachments).toEqual([
      {
        text: "<http://url1.com|abcdefgh>: message1 - author1\n\n<http://url2.com|12345678>: message2 w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w ... - author2",
        color: "#334455",
      },
    ]);
    expect(message.threadKey).toBe("push project_name_master");
  });

  it("a push, with Markdown", () => {
    const message = pushMessage(push({ commits }), { ...pushOptions, markdown: true });
    expect(message.pretext).toBe(
      "test.user pushed to branch [master](http://url.com/-/commits/master) of [project_name](http://url.com) ([Compare changes](http://url.com/-/compare/before...after))",
    );
    expect(message.attachments).toBe(
      "[abcdefgh](http://url1.com): message1 - author1\n\n[12345678](http://url2.com): message2 w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w ... - author2",
    );
    expect(message.activity).toEqual(
      card("test.user pushed to branch [master](http://url.com/-/commits/master)", "in [project_name](http://url.com)", "[Compare changes](http://url.com/-/compare/before...after)", "http://someavatar.com"),
    );
  });

  it("a new tag", () => {
    const tag = push({ before: zeros, ref: "refs/tags/new_tag" });
    expect(pushMessage(tag, pushOptions).pretext).toBe("test.user pushed new tag <http://url.com/-/tags/new_tag|new_tag> to <http://url.com|project_name>");
    expect(pushMessage(tag, pushOptions).attachments).toEqual([]);
    const withMarkdown = pushMessage(tag, { ...pushOptions, markdown: true });
    expect(withMarkdown.pretext).toBe("test.user pushed new tag [new_tag](http://url.com/-/tags/new_tag) to [project_name](http://url.com)");
    expect(withMarkdown.activity).toEqual(
      card("test.user pushed new tag [new_tag](http://url.com/-/tags/new_tag)", "in [project_name](http://url.com)", `[Compare changes](http://url.com/-/compare/${zeros}...after)`, "http://someavatar.com"),
    );
  });

  it("a removed tag", () => {
    const removed = push({ after: zeros, ref: "refs/tags/new_tag" });
    expect(pushMessage(removed, pushOptions).pretext).toBe("test.user removed tag new_tag from <http://url.com|project_name>");
    expect(pushMessage(removed, { ...pushOptions, markdown: true }).activity?.title).toBe("test.user removed tag new_tag");
  });

  it("a new branch and a removed one", () => {
    expect(pushMessage(push({ before: zeros }), pushOptions).pretext).toBe(
      "test.user pushed new branch <http://url.com/-/commits/master|master> to <http://url.com|project_name>",
    );
    expect(pushMessage(push({ before: zeros, commits }), pushOptions).attachments).toEqual([]);
    expect(pushMessage(push({ after: zeros }), pushOptions).pretext).toBe("test.user removed branch master from <http://url.com|project_name>");
    expect(pushMessage(push({ after: zeros }), { ...pushOptions, markdown: true }).pretext).toBe("test.user removed branch master from [project_name](http://url.com)");
  });
});

describe("AlertMessage", () => {
  const alert = {
    object_kind: "alert",
    object_attributes: { title: "High error rate", url: "http://example.com/g/p/-/alert_management/3/details", severity: "critical", events: 1, status: "triggered", started_at: "2020-04-23T01:06:00.000Z" },
  };

  it("says which project, and attaches the alert's details with its link", () => {
    const message = alertMessage(alert, { ...plain, projectName: "Group / Project" });
    expect(message.pretext).toBe("Alert firing in Group / Project");
    const [attachment, ...more] = message.attachments as SlackAttachment[];
    expect(more).toEqual([]);
    expect(attachment).toMatchObject({ title: "High error rate", title_link: "http://example.com/g/p/-/alert_management/3/details", color: "#C95823" });
    expect(attachment!.fields!.map((field) => [field.title, field.value, field.short])).toEqual([
      ["Severity", "Critical", true],
      ["Events", 1, true],
      ["Status", "Triggered", true],
      ["Start time", "April 23rd, 2020  1:06AM UTC", true],
    ]);
  });

  it("writes the start time as Ruby's strftime does", () => {
    expect(alertStartTime("2021-11-02T13:45:00Z")).toBe("November 2nd, 2021  1:45PM UTC");
    expect(alertStartTime("2021-12-11T00:05:00Z")).toBe("December 11th, 2021 12:05AM UTC");
    expect(alertStartTime("2022-01-21T23:59:00Z")).toBe("January 21st, 2022 11:59PM UTC");
    expect(alertStartTime("2022-03-22T12:00:00Z")).toBe("March 22nd, 2022 12:00PM UTC");
  });
});
