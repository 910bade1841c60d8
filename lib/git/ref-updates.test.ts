import { describe, expect, it } from "vitest";
import { commitTitleOf, describeRef, parseRefUpdates, pushActionOf } from "./ref-updates";

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
