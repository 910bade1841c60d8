import { describe, expect, it } from "vitest";
import { escapeXml, eventEntry, renderAtom } from "./atom";
import type { FeedEvent } from "./describe";

const push: FeedEvent = {
  id: 7,
  project_id: 3,
  action_name: "pushed to",
  target_id: null,
  target_iid: null,
  target_type: null,
  target_title: null,
  created_at: "2024-05-01T10:00:00.000Z",
  author: { id: 1, username: "alice", name: "Alice <A&B>" },
  author_username: "alice",
  push_data: { commit_count: 1, action: "pushed", ref_type: "branch", commit_from: "a", commit_to: "0123456789abcdef", ref: "main", commit_title: "Fix <b>" },
};

describe("Atom feeds", () => {
  it("escapes markup and replaces characters XML cannot hold", () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    expect(escapeXml("bell\u0007 tab\t")).toBe("bell\uFFFD tab\t");
    expect(escapeXml("lone \uD800 surrogate, pair \uD83D\uDE00")).toBe("lone \uFFFD surrogate, pair \uD83D\uDE00");
  });

  it("titles an event as GitLab does and links its target", () => {
    const entry = eventEntry(push, "group/project", "https://code.example.com");
    expect(entry).toEqual({
      id: "tag:code.example.com,2005:events/7",
      title: "Alice <A&B> pushed to branch main at group/project",
      updated: "2024-05-01T10:00:00.000Z",
      link: "https://code.example.com/group/project",
      author: { name: "Alice <A&B>", uri: "https://code.example.com/alice" },
      summary: "01234567 · Fix <b> · 1 commit",
    });
    const comment = eventEntry(
      { ...push, push_data: undefined, action_name: "commented on", target_type: "Note", target_id: 9, target_title: "Bug", note: { id: 9, body: "Me too", noteable_iid: 4 } },
      "group/project",
      "https://code.example.com",
    );
    expect(comment.title).toBe("Alice <A&B> commented on issue #4 Bug at group/project");
    expect(comment.link).toBe("https://code.example.com/group/project/-/issues/4#note_9");
  });

  it("titles a group's own event with the group's full name and links the group", () => {
    const joined: FeedEvent = {
      ...push,
      push_data: undefined,
      project_id: null,
      action_name: "joined",
      group: { id: 4, name: "Platform", full_name: "Acme / Platform", full_path: "acme/platform", web_url: "https://code.example.com/groups/acme/platform" },
    };
    expect(eventEntry(joined, "unused", "https://code.example.com")).toEqual({
      id: "tag:code.example.com,2005:events/7",
      title: "Alice <A&B> joined group Acme / Platform",
      updated: "2024-05-01T10:00:00.000Z",
      link: "https://code.example.com/groups/acme/platform",
      author: { name: "Alice <A&B>", uri: "https://code.example.com/alice" },
      summary: null,
    });
  });

  it("writes a well-formed feed", () => {
    const xml = renderAtom({
      id: "https://code.example.com/alice.atom",
      title: "Alice activity",
      alternateUrl: "https://code.example.com/alice",
      updated: push.created_at,
      entries: [eventEntry(push, "group/project", "https://code.example.com")],
    });
    expect(xml).toBe(
      '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><id>https://code.example.com/alice.atom</id>' +
        "<title>Alice activity</title><updated>2024-05-01T10:00:00.000Z</updated>" +
        '<link rel="self" type="application/atom+xml" href="https://code.example.com/alice.atom"/>' +
        '<link rel="alternate" type="text/html" href="https://code.example.com/alice"/>' +
        "<entry><id>tag:code.example.com,2005:events/7</id><title>Alice &lt;A&amp;B&gt; pushed to branch main at group/project</title>" +
        '<updated>2024-05-01T10:00:00.000Z</updated><link rel="alternate" type="text/html" href="https://code.example.com/group/project"/>' +
        "<author><name>Alice &lt;A&amp;B&gt;</name><uri>https://code.example.com/alice</uri></author>" +
        '<summary type="text">01234567 · Fix &lt;b&gt; · 1 commit</summary></entry></feed>\n',
    );
  });
});
