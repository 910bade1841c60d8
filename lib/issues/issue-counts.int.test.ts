import { eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pageRequest } from "@/lib/api/pagination";
import { issues, labels, projects, users } from "@/lib/db/schema";
import { addMember } from "@/lib/projects/members";
import { createProject, getProjectDetails } from "@/lib/projects/projects";
import { deleteProject } from "@/lib/projects/settings";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { listIssues } from "./issue-list";
import { createIssue, deleteIssue, updateIssue } from "./issues";
import { deleteLabel, listLabels } from "./labels";

/**
 * The open-issue counts of projects and the issue counts of labels are kept by triggers (drizzle/0015_list_indexes_and_issue_counts.sql): after every
 * kind of write they must equal a count of the rows, and the entities and lists that show them must agree.
 */
describe.each(testDatabases())("maintained issue counts on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  /** The maintained counts of a project and its labels beside the same figures counted from the rows. */
  async function countsOf(projectId: number) {
    const [project] = await handle.db
      .select({ opened: projects.openIssuesCount, openedNonConfidential: projects.openNonConfidentialIssuesCount })
      .from(projects)
      .where(eq(projects.id, projectId));
    const [counted] = await handle.db
      .select({
        opened: sql<number>`count(*) filter (where ${issues.state} = 'opened')`.mapWith(Number),
        openedNonConfidential: sql<number>`count(*) filter (where ${issues.state} = 'opened' and not ${issues.confidential})`.mapWith(Number),
      })
      .from(issues)
      .where(eq(issues.projectId, projectId));
    const labelRows = await handle.db.select().from(labels).where(eq(labels.projectId, projectId)).orderBy(labels.title);
    type CountedLabel = { label_id: number; opened: number; closed: number; opened_nc: number; closed_nc: number };
    const countedLabels = (await handle.db.execute(sql`
      select link.label_id,
        count(*) filter (where i.state = 'opened')::integer as opened,
        count(*) filter (where i.state = 'closed')::integer as closed,
        count(*) filter (where i.state = 'opened' and not i.confidential)::integer as opened_nc,
        count(*) filter (where i.state = 'closed' and not i.confidential)::integer as closed_nc
      from issue_labels link join issues i on i.id = link.issue_id where i.project_id = ${projectId} group by link.label_id`)) as unknown as CountedLabel[];
    const countedByLabel = new Map(countedLabels.map((row) => [Number(row.label_id), row]));
    return {
      maintained: {
        project,
        labels: labelRows.map((label) => [
          label.title,
          label.openIssuesCount,
          label.closedIssuesCount,
          label.openNonConfidentialIssuesCount,
          label.closedNonConfidentialIssuesCount,
        ]),
      },
      counted: {
        project: counted,
        labels: labelRows.map((label) => {
          const row = countedByLabel.get(label.id);
          return [label.title, row?.opened ?? 0, row?.closed ?? 0, row?.opened_nc ?? 0, row?.closed_nc ?? 0];
        }),
      },
    };
  }

  async function expectExact(projectId: number) {
    const { maintained, counted } = await countsOf(projectId);
    expect(maintained).toEqual(counted);
    return maintained;
  }

  async function team() {
    const [owner, reporter, guest] = await Promise.all([1, 2, 3].map(() => createTestUser(handle.db)));
    const ownerCtx = userContext(handle.db, owner!);
    const view = await createProject(ownerCtx, { name: `Counts ${uniqueSuffix()}`, visibility: "public" });
    const project = String(view.project.id);
    await addMember(ownerCtx, project, { userId: reporter!.id, accessLevel: 20 });
    await addMember(ownerCtx, project, { userId: guest!.id, accessLevel: 10 });
    return { guest: guest!, projectId: view.project.id, project, ownerCtx, guestCtx: userContext(handle.db, guest!), reporterCtx: userContext(handle.db, reporter!) };
  }

  it("every write to issues and their labels keeps the counts exact: create, close, reopen, confidentiality, relabel, delete", async () => {
    const { projectId, project, ownerCtx, guestCtx } = await team();
    const bug = await createIssue(ownerCtx, project, { title: "bug", labels: ["bug", "ui"] });
    const secret = await createIssue(ownerCtx, project, { title: "secret", labels: ["bug"], confidential: true });
    const own = await createIssue(guestCtx, project, { title: "guest's own", labels: ["bug"], confidential: true }).catch(() => null);
    // Guests may not create issues: the counts are unchanged by the refusal.
    expect(own).toBeNull();
    expect(await expectExact(projectId)).toEqual({
      project: { opened: 2, openedNonConfidential: 1 },
      labels: [
        ["bug", 2, 0, 1, 0],
        ["ui", 1, 0, 1, 0],
      ],
    });

    await updateIssue(ownerCtx, project, bug.issue.iid, { stateEvent: "close" });
    expect((await expectExact(projectId)).project).toEqual({ opened: 1, openedNonConfidential: 0 });
    await updateIssue(ownerCtx, project, secret.issue.iid, { confidential: false });
    expect((await expectExact(projectId)).labels).toEqual([
      ["bug", 1, 1, 1, 1],
      ["ui", 0, 1, 0, 1],
    ]);
    await updateIssue(ownerCtx, project, bug.issue.iid, { stateEvent: "reopen", labels: ["ui", "docs"] });
    expect(await expectExact(projectId)).toEqual({
      project: { opened: 2, openedNonConfidential: 2 },
      labels: [
        ["bug", 1, 0, 1, 0],
        ["docs", 1, 0, 1, 0],
        ["ui", 1, 0, 1, 0],
      ],
    });
    await updateIssue(ownerCtx, project, bug.issue.iid, { addLabels: ["bug"], removeLabels: ["docs"], confidential: true });
    expect(await expectExact(projectId)).toEqual({
      project: { opened: 2, openedNonConfidential: 1 },
      labels: [
        ["bug", 2, 0, 1, 0],
        ["docs", 0, 0, 0, 0],
        ["ui", 1, 0, 0, 0],
      ],
    });
    // A change that moves no count (the title) leaves them as they are.
    await updateIssue(ownerCtx, project, bug.issue.iid, { title: "renamed" });
    await expectExact(projectId);

    await deleteIssue(ownerCtx, project, bug.issue.iid);
    expect(await expectExact(projectId)).toEqual({
      project: { opened: 1, openedNonConfidential: 1 },
      labels: [
        ["bug", 1, 0, 1, 0],
        ["docs", 0, 0, 0, 0],
        ["ui", 0, 0, 0, 0],
      ],
    });
    await deleteLabel(ownerCtx, project, "bug");
    expect((await expectExact(projectId)).labels).toEqual([
      ["docs", 0, 0, 0, 0],
      ["ui", 0, 0, 0, 0],
    ]);
  });

  it("statements that change many issues at once, and a deleted author's issues, are counted per project", async () => {
    const { projectId, project, ownerCtx } = await team();
    const other = await createProject(ownerCtx, { name: `Other ${uniqueSuffix()}` });
    const author = await createTestUser(handle.db);
    await addMember(ownerCtx, project, { userId: author.id, accessLevel: 30 });
    const authorCtx = userContext(handle.db, author);
    for (const title of ["a", "b", "c"]) await createIssue(authorCtx, project, { title, labels: ["triage"] });
    await createIssue(ownerCtx, String(other.project.id), { title: "elsewhere", confidential: true });
    // One statement closing issues of two projects.
    await handle.db.update(issues).set({ state: "closed" }).where(inArray(issues.projectId, [projectId, other.project.id]));
    expect(await expectExact(projectId)).toEqual({ project: { opened: 0, openedNonConfidential: 0 }, labels: [["triage", 0, 3, 0, 3]] });
    expect((await expectExact(other.project.id)).project).toEqual({ opened: 0, openedNonConfidential: 0 });
    await handle.db.update(issues).set({ state: "opened" }).where(eq(issues.projectId, projectId));
    expect((await expectExact(projectId)).project).toEqual({ opened: 3, openedNonConfidential: 3 });

    // Deleting the author deletes their issues (a cascade): their project's and labels' counts follow.
    await handle.db.delete(users).where(eq(users.id, author.id));
    expect(await expectExact(projectId)).toEqual({ project: { opened: 0, openedNonConfidential: 0 }, labels: [["triage", 0, 0, 0, 0]] });
  });

  it("a project deleted with its issues and labels takes its counts along, and leaves other projects' alone", async () => {
    const { projectId, project, ownerCtx } = await team();
    const kept = await createProject(ownerCtx, { name: `Kept ${uniqueSuffix()}` });
    await createIssue(ownerCtx, project, { title: "goes", labels: ["gone"] });
    await createIssue(ownerCtx, String(kept.project.id), { title: "stays", labels: ["kept"] });
    await deleteProject(ownerCtx, project);
    expect(await handle.db.select().from(projects).where(eq(projects.id, projectId))).toEqual([]);
    expect(await expectExact(kept.project.id)).toEqual({ project: { opened: 1, openedNonConfidential: 1 }, labels: [["kept", 1, 0, 1, 0]] });
  });

  it("entities and lists show the counts each caller may read: confidential issues for Reporters, and a guest's own", async () => {
    const { project, ownerCtx, guestCtx, reporterCtx, guest, projectId } = await team();
    await createIssue(ownerCtx, project, { title: "open", labels: ["area"] });
    await createIssue(ownerCtx, project, { title: "secret", labels: ["area"], confidential: true });
    const closedSecret = await createIssue(ownerCtx, project, { title: "closed secret", labels: ["area"], confidential: true });
    await updateIssue(ownerCtx, project, closedSecret.issue.iid, { stateEvent: "close" });
    // An issue the guest wrote and that was made confidential afterwards: theirs to read.
    const [guestsOwn] = await handle.db
      .insert(issues)
      .values({ projectId, iid: 1000, title: "guest's own secret", authorId: guest.id, confidential: true })
      .returning();
    await handle.db.execute(sql`insert into issue_labels (issue_id, label_id) select ${guestsOwn!.id}, id from labels where project_id = ${projectId}`);

    expect((await getProjectDetails(reporterCtx, project)).openIssuesCount).toBe(3);
    expect((await getProjectDetails(guestCtx, project)).openIssuesCount).toBe(1);
    expect((await getProjectDetails(anonymousTestContext(handle.db), project)).openIssuesCount).toBe(1);

    const labelCounts = async (ctx: typeof ownerCtx) => (await listLabels(ctx, project, { withCounts: true }, pageRequest({}))).items.map((item) => item.counts);
    expect(await labelCounts(reporterCtx)).toEqual([{ openIssues: 3, closedIssues: 1 }]);
    expect(await labelCounts(guestCtx)).toEqual([{ openIssues: 2, closedIssues: 0 }]);
    expect(await labelCounts(anonymousTestContext(handle.db))).toEqual([{ openIssues: 1, closedIssues: 0 }]);

    // The open issues' list totals from the same counts, and they agree with the list itself.
    for (const [ctx, expected] of [
      [reporterCtx, 3],
      [guestCtx, 2],
      [anonymousTestContext(handle.db), 1],
    ] as const) {
      const list = await listIssues(ctx, project, { state: "opened" }, pageRequest({ per_page: 1 }));
      expect(list.total).toBe(expected);
      const all = await listIssues(ctx, project, { state: "opened" }, pageRequest({ per_page: 100 }));
      expect(all.items).toHaveLength(expected);
    }
  });

  it("concurrent writes to issues sharing labels all succeed, and the counts add up", async () => {
    const { projectId, project, ownerCtx } = await team();
    await createIssue(ownerCtx, project, { title: "labels exist", labels: ["alpha", "beta", "gamma"] });
    const writes = Array.from({ length: 12 }, (_, index) =>
      createIssue(ownerCtx, project, { title: `concurrent ${index}`, labels: index % 2 === 0 ? ["alpha", "beta", "gamma"] : ["gamma", "beta", "alpha"] }),
    );
    const created = await Promise.all(writes);
    await Promise.all(created.slice(0, 6).map((details) => updateIssue(ownerCtx, project, details.issue.iid, { stateEvent: "close" })));
    expect(await expectExact(projectId)).toEqual({
      project: { opened: 7, openedNonConfidential: 7 },
      labels: [
        ["alpha", 7, 6, 7, 6],
        ["beta", 7, 6, 7, 6],
        ["gamma", 7, 6, 7, 6],
      ],
    });
  });
});
