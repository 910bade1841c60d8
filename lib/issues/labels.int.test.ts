import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pageRequest } from "@/lib/api/pagination";
import { issueLabels, labels } from "@/lib/db/schema";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "@/lib/errors";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createIssue, getIssue, updateIssue } from "./issues";
import { createLabel, deleteLabel, getLabel, listLabels, updateLabel } from "./labels";

describe.each(testDatabases())("labels on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function team() {
    const [owner, reporter, guest] = await Promise.all([1, 2, 3].map(() => createTestUser(handle.db)));
    const ownerCtx = userContext(handle.db, owner!);
    const view = await createProject(ownerCtx, { name: `Labels ${uniqueSuffix()}`, visibility: "public" });
    const project = String(view.project.id);
    await addMember(ownerCtx, project, { userId: reporter!.id, accessLevel: 20 });
    await addMember(ownerCtx, project, { userId: guest!.id, accessLevel: 10 });
    return { owner: owner!, reporter: reporter!, guest: guest!, project, ownerCtx, reporterCtx: userContext(handle.db, reporter!) };
  }

  it("Reporters create labels with a colour; titles are unique per project, comma-free and trimmed; colours are hex", async () => {
    const { project, reporterCtx, guest } = await team();
    const { label } = await createLabel(reporterCtx, project, { name: " bug ", color: "#D9534F", description: "Something broke" });
    expect(label).toMatchObject({ title: "bug", color: "#D9534F", description: "Something broke" });
    await expect(createLabel(reporterCtx, project, { name: "bug", color: "#fff" })).rejects.toEqual(new ConflictError("Label already exists"));
    await expect(createLabel(reporterCtx, project, { name: "a,b", color: "#fff" })).rejects.toEqual(new ValidationError({ title: ["is invalid"] }));
    await expect(createLabel(reporterCtx, project, { name: "ok", color: "red" })).rejects.toEqual(new ValidationError({ color: ["must be a valid color code"] }));
    await expect(createLabel(userContext(handle.db, guest), project, { name: "guest", color: "#fff" })).rejects.toBeInstanceOf(ForbiddenError);
    expect((await handle.db.select().from(labels).where(eq(labels.projectId, Number(project)))).map((row) => row.title)).toEqual(["bug"]);
  });

  it("lists by title, searches title and description, and counts the open and closed issues the caller may read", async () => {
    const { project, ownerCtx, guest } = await team();
    await createLabel(ownerCtx, project, { name: "zeta", color: "#000000" });
    await createLabel(ownerCtx, project, { name: "alpha", color: "#ffffff", description: "first letter" });
    await createIssue(ownerCtx, project, { title: "one", labels: ["zeta"] });
    const closed = await createIssue(ownerCtx, project, { title: "two", labels: ["zeta", "beta"] });
    await updateIssue(ownerCtx, project, closed.issue.iid, { stateEvent: "close" });
    await createIssue(ownerCtx, project, { title: "hidden", labels: ["zeta"], confidential: true });
    const list = await listLabels(ownerCtx, project, {}, pageRequest({}));
    expect(list.items.map(({ label }) => label.title)).toEqual(["alpha", "beta", "zeta"]);
    expect(list.total).toBe(3);
    expect((await listLabels(ownerCtx, project, { search: "letter" }, pageRequest({}))).items.map(({ label }) => label.title)).toEqual(["alpha"]);
    expect((await listLabels(ownerCtx, project, { search: "z" }, pageRequest({}))).items.map(({ label }) => label.title)).toEqual(["zeta"]);
    expect((await listLabels(ownerCtx, project, { search: "ETA" }, pageRequest({}))).items.map(({ label }) => label.title)).toEqual(["beta", "zeta"]);
    const counted = async (ctx: typeof ownerCtx) =>
      (await listLabels(ctx, project, { withCounts: true }, pageRequest({}))).items.map(({ label, counts }) => [label.title, counts]);
    expect(await counted(ownerCtx)).toEqual([
      ["alpha", { openIssues: 0, closedIssues: 0 }],
      ["beta", { openIssues: 0, closedIssues: 1 }],
      ["zeta", { openIssues: 2, closedIssues: 1 }],
    ]);
    expect((await counted(userContext(handle.db, guest)))[2]).toEqual(["zeta", { openIssues: 1, closedIssues: 1 }]);
    expect((await listLabels(anonymousTestContext(handle.db), project, {}, pageRequest({}))).items[0]?.counts).toBeUndefined();
  });

  it("finds a label by id or title, renames, recolours and deletes it; its issues follow", async () => {
    const { project, ownerCtx, reporterCtx } = await team();
    const { label } = await createLabel(ownerCtx, project, { name: "123", color: "#111" });
    const { label: other } = await createLabel(ownerCtx, project, { name: "other", color: "#222" });
    const { issue } = await createIssue(ownerCtx, project, { title: "labelled", labels: ["123", "other"] });
    expect((await getLabel(ownerCtx, project, String(label.id))).label.title).toBe("123");
    expect((await getLabel(ownerCtx, project, "other")).label.id).toBe(other.id);
    await expect(getLabel(ownerCtx, project, "missing")).rejects.toEqual(new NotFoundError("Label"));

    const renamed = await updateLabel(reporterCtx, project, "other", { newName: "renamed", color: "#333333", description: "now described" });
    expect(renamed.label).toMatchObject({ id: other.id, title: "renamed", color: "#333333", description: "now described" });
    await expect(updateLabel(reporterCtx, project, "renamed", { newName: "123" })).rejects.toEqual(new ConflictError("Label already exists"));
    expect((await getIssue(ownerCtx, project, issue.iid)).labels.map((row) => row.title)).toEqual(["123", "renamed"]);

    await deleteLabel(reporterCtx, project, "renamed");
    expect(await handle.db.select().from(issueLabels).where(eq(issueLabels.labelId, other.id))).toEqual([]);
    expect((await getIssue(ownerCtx, project, issue.iid)).labels.map((row) => row.title)).toEqual(["123"]);
    await expect(deleteLabel(reporterCtx, project, "renamed")).rejects.toEqual(new NotFoundError("Label"));
  });
});
