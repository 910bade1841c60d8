import { describe, expect, it } from "vitest";
import { parseParams } from "@/lib/api/request";
import { ParameterError } from "@/lib/errors";
import { issueFiltersFrom, issueListParams, issueMetadataFrom, issueMetadataParams } from "./issue-params";

const filters = (input: Record<string, unknown>) => issueFiltersFrom(parseParams(issueListParams, input));

describe("issue list parameters", () => {
  it("reads labels as AND lists, with None and Any in any case", () => {
    expect(filters({ labels: "bug, ui" }).labels).toEqual({ kind: "all-of", names: ["bug", "ui"] });
    expect(filters({ labels: ["bug", "ui,docs"] }).labels).toEqual({ kind: "all-of", names: ["bug", "ui", "docs"] });
    expect(filters({ labels: "None" }).labels).toEqual({ kind: "none" });
    expect(filters({ labels: "any" }).labels).toEqual({ kind: "any" });
    expect(filters({ labels: "" }).labels).toBeUndefined();
  });

  it("reads milestones by title or wildcard (milestone_id), and the older wildcard spellings", () => {
    expect(filters({ milestone: "v1.0" }).milestone).toEqual({ kind: "title", title: "v1.0" });
    expect(filters({ milestone: "none" }).milestone).toEqual({ kind: "none" });
    expect(filters({ milestone: "Any Milestone" }).milestone).toEqual({ kind: "any" });
    expect(filters({ milestone: "#upcoming" }).milestone).toEqual({ kind: "upcoming" });
    expect(filters({ milestone_id: "Started" }).milestone).toEqual({ kind: "started" });
    expect(() => filters({ milestone_id: "started" })).toThrow(new ParameterError("milestone_id", "does not have a valid value"));
  });

  it("reads assignee_id as a number, None or Any", () => {
    expect(filters({ assignee_id: "12" }).assignee).toEqual({ kind: "id", id: 12 });
    expect(filters({ assignee_id: "NONE" }).assignee).toEqual({ kind: "none" });
    expect(filters({ assignee_id: "Any" }).assignee).toEqual({ kind: "any" });
    expect(() => filters({ assignee_id: "me" })).toThrow(new ParameterError("assignee_id", "is invalid"));
  });

  it("refuses the pairs GitLab declares mutually exclusive", () => {
    expect(() => filters({ author_id: "1", author_username: "x" })).toThrow(new ParameterError("author_id, author_username", "are mutually exclusive"));
    expect(() => filters({ milestone: "v1", milestone_id: "Any" })).toThrow(new ParameterError("milestone_id, milestone", "are mutually exclusive"));
    expect(() => filters({ assignee_id: "1", assignee_username: "x" })).toThrow(new ParameterError("assignee_id, assignee_username", "are mutually exclusive"));
  });

  it("reads scopes in both spellings, search columns, iids and dates", () => {
    expect(filters({ scope: "assigned-to-me" }).scope).toBe("assigned_to_me");
    expect(filters({ search: "x", in: "title,body" }).searchIn).toEqual(["title"]);
    expect(filters({ in: "nothing" }).searchIn).toBeUndefined();
    expect(filters({ iids: ["1", "2"] }).iids).toEqual([1, 2]);
    expect(filters({ created_after: "2024-01-01" }).createdAfter).toEqual(new Date("2024-01-01T00:00:00Z"));
    expect(() => filters({ order_by: "votes" })).toThrow(new ParameterError("order_by", "does not have a valid value"));
  });
});

describe("issue metadata parameters", () => {
  const metadata = (input: Record<string, unknown>) => issueMetadataFrom(parseParams(issueMetadataParams, input));

  it("lets the older assignee_id win over assignee_ids, and takes lists as arrays or comma lists", () => {
    expect(metadata({ assignee_ids: "1,2" }).assigneeIds).toEqual([1, 2]);
    expect(metadata({ assignee_ids: [3], assignee_id: 4 }).assigneeIds).toEqual([4]);
    expect(metadata({ assignee_id: null, assignee_ids: [5] }).assigneeIds).toEqual([5]);
    expect(metadata({ labels: "a,b" }).labels).toEqual(["a", "b"]);
    expect(metadata({ due_date: "" }).dueDate).toBeNull();
    expect(metadata({ milestone_id: null }).milestoneId).toBeNull();
  });
});
