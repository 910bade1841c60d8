import { describe, expect, it } from "vitest";
import { relativeTimeText } from "@/lib/time/relative";
import { describeEvent, nextCursorFromLink, noteExcerpt, type FeedEvent } from "./describe";

const base: FeedEvent = {
  id: 1,
  project_id: 5,
  action_name: "opened",
  target_id: 10,
  target_iid: 3,
  target_type: "Issue",
  target_title: "Title",
  created_at: "2024-01-01T00:00:00.000Z",
  author: { id: 1, username: "root", name: "Administrator" },
  author_username: "root",
};

const words = (event: FeedEvent) => describeEvent(event, "group/project").phrases.map((phrase) => phrase.text).join(" ");

describe("activity feed sentences", () => {
  it("words pushes with the ref and the commit title", () => {
    const push = {
      ...base,
      action_name: "pushed new",
      target_type: null,
      push_data: { commit_count: 2, action: "created", ref_type: "branch", commit_from: null, commit_to: "abcdef0123456789", ref: "main", commit_title: "Add a" },
    } as FeedEvent;
    expect(words(push)).toBe("pushed new branch main");
    expect(describeEvent(push, null).detail).toBe("abcdef01 · Add a · 2 commits");
    expect(words({ ...push, push_data: { ...push.push_data!, action: "removed", ref_type: "tag", ref: "v1" } })).toBe("deleted tag v1");
    expect(words({ ...push, push_data: { ...push.push_data!, action: "pushed" } })).toBe("pushed to branch main");
  });

  it("words a bulk push by how many refs it changed, as GitLab's feed does", () => {
    const bulk = {
      ...base,
      action_name: "pushed new",
      target_type: null,
      push_data: { commit_count: 0, action: "created", ref_type: "branch", commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: 5 },
    } as FeedEvent;
    expect(words(bulk)).toBe("pushed new 5 branches");
    expect(describeEvent(bulk, null).detail).toBeNull();
    expect(words({ ...bulk, push_data: { ...bulk.push_data!, action: "removed", ref_type: "tag", ref_count: 4 } })).toBe("deleted 4 tags");
  });

  it("words issues, comments, milestones and membership", () => {
    expect(words(base)).toBe("opened issue #3 Title");
    expect(describeEvent(base, "group/project").phrases[1]!.href).toBe("/group/project/-/issues/3");
    const note = { ...base, action_name: "commented on", target_type: "Note", target_id: 77, target_iid: 77, note: { id: 77, body: "Hi", noteable_iid: 3 } };
    expect(words(note)).toBe("commented on issue #3 Title");
    expect(describeEvent(note, "group/project").phrases[1]!.href).toBe("/group/project/-/issues/3#note_77");
    expect(words({ ...base, action_name: "closed", target_type: "Milestone", target_title: "v1" })).toBe("closed milestone %v1");
    const joined = { ...base, action_name: "joined", target_type: null, target_title: null };
    expect(words(joined)).toBe("joined");
    expect(describeEvent(joined, null).projectWording).toBe("project");
  });

  it("words a group's own events with the group's full name and a link to it", () => {
    const group = { id: 9, name: "Platform", full_name: "Acme / Platform", full_path: "acme/platform", web_url: "http://x/groups/acme/platform" };
    const joined = { ...base, project_id: null, action_name: "joined", target_id: null, target_iid: null, target_type: null, target_title: null, group };
    expect(describeEvent(joined, null)).toEqual({
      phrases: [{ text: "joined" }],
      projectWording: "project",
      group: { fullName: "Acme / Platform", href: "/groups/acme/platform" },
      detail: null,
    });
    expect(words({ ...joined, action_name: "removed due to membership expiration from" })).toBe("removed due to membership expiration from");
    expect(describeEvent(base, "group/project").group).toBeNull();
  });

  it("reads the keyset cursor from the Link header and says times relatively", () => {
    expect(nextCursorFromLink('<http://x/api/v4/events?id_before=42&pagination=keyset>; rel="next"')).toBe("42");
    expect(nextCursorFromLink(null)).toBeNull();
    const now = new Date("2024-01-01T12:00:00Z");
    expect(relativeTimeText("2024-01-01T11:59:30Z", now)).toBe("just now");
    expect(relativeTimeText("2024-01-01T11:55:00Z", now)).toBe("5 minutes ago");
    expect(relativeTimeText("2023-12-31T12:00:00Z", now)).toBe("yesterday");
  });

  it("shows a comment's first 150 characters, white space collapsed, whatever its length", () => {
    expect(noteExcerpt("Looks  good\n\nto me")).toBe("Looks good to me");
    expect(noteExcerpt("x".repeat(150))).toBe("x".repeat(150));
    expect(noteExcerpt("x".repeat(151))).toBe(`${"x".repeat(149)}…`);
    expect(noteExcerpt("😀".repeat(200))).toBe(`${"😀".repeat(149)}…`);
    expect(noteExcerpt(`${" ".repeat(5000)}late`)).toBe("…");
    const huge = "a".repeat(1_000_000);
    expect(noteExcerpt(huge)).toBe(`${"a".repeat(149)}…`);
  });
});
