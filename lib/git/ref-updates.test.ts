import { describe, expect, it } from "vitest";
import { commitTitleOf, describeRef, parseRefUpdates, planPushEvents, pushActionOf, type RefUpdate } from "./ref-updates";

const zero = "0".repeat(40);
const a = "a".repeat(40);
const b = "b".repeat(40);

describe("ref updates from the post-receive hook", () => {
  it("parses update lines and ignores anything else", () => {
    expect(parseRefUpdates(`${zero} ${a} refs/heads/main\nnoise\n${a} ${b} refs/tags/v1\n\n`)).toEqual([
      { oldSha: zero, newSha: a, ref: "refs/heads/main" },
      { oldSha: a, newSha: b, ref: "refs/tags/v1" },
    ]);
    expect(parseRefUpdates(`${"0".repeat(64)} ${"c".repeat(64)} refs/heads/sha256`)).toHaveLength(1);
  });

  it("tells created, removed and pushed refs apart", () => {
    expect(pushActionOf({ oldSha: zero, newSha: a, ref: "refs/heads/x" })).toBe("created");
    expect(pushActionOf({ oldSha: a, newSha: zero, ref: "refs/heads/x" })).toBe("removed");
    expect(pushActionOf({ oldSha: a, newSha: b, ref: "refs/heads/x" })).toBe("pushed");
  });

  it("names branches and tags and skips other refs", () => {
    expect(describeRef("refs/heads/feature/x")).toEqual({ refType: "branch", name: "feature/x" });
    expect(describeRef("refs/tags/v1.0")).toEqual({ refType: "tag", name: "v1.0" });
    expect(describeRef("refs/notes/commits")).toBeNull();
  });

  it("takes the first non-empty line of a message as the title", () => {
    expect(commitTitleOf("Fix it\n\nBecause.\n")).toBe("Fix it");
    expect(commitTitleOf("\n  Leading blank\nsecond")).toBe("Leading blank");
    expect(commitTitleOf("")).toBeNull();
  });
});

describe("planning a push's events as GitLab does", () => {
  const created = (ref: string): RefUpdate => ({ oldSha: zero, newSha: a, ref });
  const pushed = (ref: string): RefUpdate => ({ oldSha: a, newSha: b, ref });
  const removed = (ref: string): RefUpdate => ({ oldSha: a, newSha: zero, ref });
  const bulk = (action: string, refType: string, refCount: number) => ({
    kind: "bulk",
    pushData: { commit_count: 0, action, ref_type: refType, commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: refCount },
  });

  it("records an event per ref up to the limit of like changes", () => {
    const updates = [created("refs/heads/a"), created("refs/heads/b"), created("refs/heads/c")];
    expect(planPushEvents(updates)).toEqual(updates.map((update) => ({ kind: "single", update })));
  });

  it("records one bulk event for more like changes than the limit, per ref type and action, branches before tags", () => {
    const updates = [
      created("refs/tags/v1"),
      created("refs/heads/a"),
      pushed("refs/heads/main"),
      created("refs/heads/b"),
      created("refs/tags/v2"),
      created("refs/heads/c"),
      created("refs/tags/v3"),
      created("refs/heads/d"),
      removed("refs/tags/old"),
      created("refs/tags/v4"),
      created("refs/notes/commits"),
    ];
    expect(planPushEvents(updates)).toEqual([
      bulk("created", "branch", 4),
      { kind: "single", update: pushed("refs/heads/main") },
      bulk("created", "tag", 4),
      { kind: "single", update: removed("refs/tags/old") },
    ]);
  });

  it("bulk-records deletions the same way", () => {
    expect(planPushEvents(["a", "b", "c", "d", "e"].map((name) => removed(`refs/heads/${name}`)))).toEqual([bulk("removed", "branch", 5)]);
  });
});
