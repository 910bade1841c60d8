import { and, eq } from "drizzle-orm";
import { noSuchId } from "@/lib/api/param-types";
import { describe, expect, it } from "vitest";
import { alerts, events, issueAssignees, issueLabels, issues, labels, notes, projects } from "@/lib/db/schema";
import { maintainedEventCount } from "@/lib/testing/event-counts";
import { ForbiddenError, NotFoundError, UnauthorizedError } from "@/lib/errors";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { getIssueAsAdmin } from "./issue-list";
import { createIssue, deleteIssue, getIssue, updateIssue } from "./issues";
import { defaultLabelColor } from "./label-rules";
import { createMilestone } from "./milestones";
import { createNote } from "./notes";

describe.each(testDatabases())("issues on $name", ({ name, open }) => {
  const handle = databaseForSuite(open);

  async function team(visibility: "public" | "private" = "private") {
    const [owner, maintainer, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4, 5].map(() => createTestUser(handle.db)));
    const admin = await createTestUser(handle.db, { isAdmin: true });
    const ownerCtx = userContext(handle.db, owner!);
    const view = await createProject(ownerCtx, { name: `Issues ${uniqueSuffix()}`, visibility });
    const project = String(view.project.id);
    await addMember(ownerCtx, project, { userId: maintainer!.id, accessLevel: 40 });
    await addMember(ownerCtx, project, { userId: reporter!.id, accessLevel: 20 });
    await addMember(ownerCtx, project, { userId: guest!.id, accessLevel: 10 });
    return { owner: owner!, maintainer: maintainer!, reporter: reporter!, guest: guest!, stranger: stranger!, admin, view, project, ownerCtx };
  }

  it("creates an issue with its labels (missing ones created in the default colour), assignees, milestone and due date", async () => {
    const { owner, reporter, guest, stranger, admin, project, view, ownerCtx } = await team();
    const existing = await handle.db.insert(labels).values({ projectId: view.project.id, title: "bug", color: "#ff0000" }).returning();
    const milestone = await createMilestone(ownerCtx, project, { title: "v1" });
    const created = await createIssue(userContext(handle.db, reporter), project, {
      title: "Broken",
      labels: ["bug", " feature , ui", "bug"],
      assigneeIds: [guest.id, stranger.id, admin.id, 999_999_999],
      milestoneId: milestone.milestone.id,
      dueDate: "2030-01-31",
    });
    expect(created.labels.map((label) => [label.title, label.color])).toEqual([
      ["bug", "#ff0000"],
      ["feature", defaultLabelColor],
      ["ui", defaultLabelColor],
    ]);
    expect(created.labels[0]!.id).toBe(existing[0]!.id);
    // A stranger cannot read a private project's issues, so is not assigned (as on GitLab, without an error).
    expect(created.assignees.map((user) => user.id)).toEqual([guest.id, admin.id].sort((a, b) => a - b));
    expect(created.milestone?.id).toBe(milestone.milestone.id);
    expect(created.issue.dueDate).toBe("2030-01-31");
    const stored = await handle.db.select().from(issueAssignees).where(eq(issueAssignees.issueId, created.issue.id));
    expect(stored.map((row) => row.userId).sort((a, b) => a - b)).toEqual([guest.id, admin.id].sort((a, b) => a - b));
    expect((await getIssue(ownerCtx, project, created.issue.iid)).labels.map((label) => label.title)).toEqual(["bug", "feature", "ui"]);
    void owner;
  });

  it("a milestone of another project, or one that does not exist, leaves the issue without one; nobody assignable, nobody assigned", async () => {
    const { project, ownerCtx, stranger } = await team();
    const other = await createProject(ownerCtx, { name: `Other ${uniqueSuffix()}` });
    const foreign = await createMilestone(ownerCtx, String(other.project.id), { title: "elsewhere" });
    const created = await createIssue(ownerCtx, project, { title: "x", milestoneId: foreign.milestone.id, assigneeIds: [stranger.id] });
    expect(created.milestone).toBeNull();
    expect(created.issue.milestoneId).toBeNull();
    expect(created.assignees).toEqual([]);
  });

  it("updates labels (replace, then add, then remove), assignees (0 or [] clears; unassignable ids change nothing), milestone and due date", async () => {
    const { project, ownerCtx, reporter, guest, stranger } = await team();
    const milestone = await createMilestone(ownerCtx, project, { title: "v1" });
    const { issue } = await createIssue(ownerCtx, project, { title: "Edit me", labels: ["a", "b"], assigneeIds: [guest.id], milestoneId: milestone.milestone.id });
    const reporterCtx = userContext(handle.db, reporter);
    const names = async (changes: Parameters<typeof updateIssue>[3]) =>
      (await updateIssue(reporterCtx, project, issue.iid, changes)).labels.map((label) => label.title);
    expect(await names({ addLabels: ["c"], removeLabels: ["a", "never-existed"] })).toEqual(["b", "c"]);
    expect(await names({ labels: ["x"], addLabels: ["y"], removeLabels: ["x"] })).toEqual(["y"]);
    expect(await names({ labels: [] })).toEqual([]);
    // Removing a name the project lacks creates nothing.
    expect(await handle.db.select().from(labels).where(eq(labels.title, "never-existed"))).toEqual([]);

    const assigned = async (ids: number[]) => (await updateIssue(reporterCtx, project, issue.iid, { assigneeIds: ids })).assignees.map((user) => user.id);
    expect(await assigned([reporter.id])).toEqual([reporter.id]);
    expect(await assigned([stranger.id])).toEqual([reporter.id]);
    expect(await assigned([0])).toEqual([]);
    expect(await assigned([guest.id])).toEqual([guest.id]);
    expect(await assigned([])).toEqual([]);

    const edited = await updateIssue(reporterCtx, project, issue.iid, { dueDate: "2031-02-03", milestoneId: 0 });
    expect(edited.issue).toMatchObject({ dueDate: "2031-02-03", milestoneId: null });
    const cleared = await updateIssue(reporterCtx, project, issue.iid, { dueDate: null, milestoneId: milestone.milestone.id });
    expect(cleared.issue).toMatchObject({ dueDate: null, milestoneId: milestone.milestone.id });
    expect((await updateIssue(reporterCtx, project, issue.iid, { milestoneId: null })).milestone).toBeNull();
  });

  it("counts the comments the caller may read and names who closed the issue", async () => {
    const { project, ownerCtx, reporter, guest, owner } = await team("public");
    const { issue } = await createIssue(ownerCtx, project, { title: "Talk" });
    await createNote(ownerCtx, project, issue.iid, { body: "open" });
    await createNote(ownerCtx, project, issue.iid, { body: "internal", internal: true });
    await updateIssue(ownerCtx, project, issue.iid, { stateEvent: "close" });
    expect((await getIssue(userContext(handle.db, reporter), project, issue.iid)).userNotesCount).toBe(2);
    const asGuest = await getIssue(userContext(handle.db, guest), project, issue.iid);
    expect(asGuest.userNotesCount).toBe(1);
    expect(asGuest.closedBy?.id).toBe(owner.id);
    expect((await getIssue(anonymousTestContext(handle.db), project, issue.iid)).userNotesCount).toBe(1);
  });

  it("Owners and admins delete an issue with its comments, labels, assignments and events; the project's event count follows", async () => {
    const { project, view, ownerCtx, maintainer, admin, guest } = await team();
    const { issue } = await createIssue(ownerCtx, project, { title: "Doomed", labels: ["bug"], assigneeIds: [guest.id] });
    const { issue: kept } = await createIssue(ownerCtx, project, { title: "Kept" });
    await createNote(ownerCtx, project, issue.iid, { body: "a comment" });
    await updateIssue(ownerCtx, project, issue.iid, { stateEvent: "close" });
    const [incident] = await handle.db
      .insert(alerts)
      .values({ projectId: view.project.id, iid: 1, title: "Down", severity: "high", startedAt: new Date(), payload: {}, issueId: issue.id })
      .returning();
    const countBefore = await eventCount(view.project.id);

    await expect(deleteIssue(userContext(handle.db, maintainer), project, issue.iid)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(deleteIssue(anonymousTestContext(handle.db), project, issue.iid)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(await handle.db.select().from(issues).where(eq(issues.id, issue.id))).toHaveLength(1);

    await deleteIssue(userContext(handle.db, admin), project, issue.iid);
    expect(await handle.db.select().from(issues).where(eq(issues.id, issue.id))).toEqual([]);
    expect(await handle.db.select().from(notes).where(eq(notes.issueId, issue.id))).toEqual([]);
    expect(await handle.db.select().from(issueLabels).where(eq(issueLabels.issueId, issue.id))).toEqual([]);
    expect(await handle.db.select().from(issueAssignees).where(eq(issueAssignees.issueId, issue.id))).toEqual([]);
    expect(await handle.db.select().from(events).where(and(eq(events.projectId, view.project.id), eq(events.issueId, issue.id)))).toEqual([]);
    // Its opening, comment and closing went: three events fewer.
    expect(await eventCount(view.project.id)).toBe(countBefore - 3);
    expect((await handle.db.select().from(alerts).where(eq(alerts.id, incident!.id)))[0]?.issueId).toBeNull();
    expect((await getIssue(ownerCtx, project, kept.iid)).issue.title).toBe("Kept");
    await expect(getIssue(ownerCtx, project, issue.iid)).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteIssue(ownerCtx, project, issue.iid)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("GET /issues/:id is for admins only", async () => {
    const { project, ownerCtx, owner, admin } = await team();
    const { issue } = await createIssue(ownerCtx, project, { title: "By id" });
    expect((await getIssueAsAdmin(userContext(handle.db, admin), issue.id)).issue.title).toBe("By id");
    await expect(getIssueAsAdmin(userContext(handle.db, owner), issue.id)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(getIssueAsAdmin(userContext(handle.db, admin), 999999999)).rejects.toBeInstanceOf(NotFoundError);
    await expect(getIssueAsAdmin(userContext(handle.db, admin), noSuchId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("issues created at once get the project's numbers one to twenty, each once", async () => {
    const { project, ownerCtx } = await team();
    const created = await Promise.all(Array.from({ length: 20 }, (_, n) => createIssue(ownerCtx, project, { title: `Concurrent ${n}` })));
    expect(created.map((issue) => issue.issue.iid).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
  });

  it("answers GitLab's messages for a title that is blank or too long, and keeps a title of 255 characters of any script", async () => {
    const { project, ownerCtx } = await team();
    await expect(createIssue(ownerCtx, project, { title: " \n " })).rejects.toMatchObject({ errors: { title: ["can't be blank"] } });
    await expect(createIssue(ownerCtx, project, { title: "x".repeat(256) })).rejects.toMatchObject({
      errors: { title: ["is too long (maximum is 255 characters)"] },
    });
    const emoji = "😀".repeat(255);
    const created = await createIssue(ownerCtx, project, { title: ` ${emoji} ` });
    expect(created.issue.title).toBe(emoji);
    expect(created.issue.iid).toBe(1);
  });

  it("an issue refused for its labels takes no number", async () => {
    const { project, ownerCtx } = await team();
    await expect(createIssue(ownerCtx, project, { title: "Refused", labels: ["x".repeat(256)] })).rejects.toMatchObject({
      errors: { title: ["is too long (maximum is 255 characters)"] },
    });
    expect((await createIssue(ownerCtx, project, { title: "Numbered" })).issue.iid).toBe(1);
  });

  // One session in PGlite: there, transactions never overlap.
  it.skipIf(name === "pglite")("an issue is created while another transaction that wrote a row of its project is still open", async () => {
    const { project, view, ownerCtx } = await team();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const labelWritten = new Promise<void>((resolve) => (written = resolve));
    // The label's foreign key holds a key-share lock on the project's row until this transaction ends.
    const other = handle.db.transaction(async (tx) => {
      await tx.insert(labels).values({ projectId: view.project.id, title: "uncommitted", color: "#000000" });
      written();
      await released;
    });
    await labelWritten;
    const tooLong = new Promise<"held up">((resolve) => setTimeout(() => resolve("held up"), 5_000).unref());
    const created = await Promise.race([createIssue(ownerCtx, project, { title: "Not held up" }), tooLong]);
    release();
    await other;
    expect(created === "held up" ? created : created.issue.title).toBe("Not held up");
    expect((await handle.db.select({ count: projects.openIssuesCount }).from(projects).where(eq(projects.id, view.project.id)))[0]?.count).toBe(1);
  });

  const eventCount = (projectId: number) => maintainedEventCount(handle.db, projectId);
});
