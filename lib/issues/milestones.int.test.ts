import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pageRequest } from "@/lib/api/pagination";
import { events, milestones } from "@/lib/db/schema";
import { ForbiddenError, NotFoundError } from "@/lib/errors";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createIssue, getIssue } from "./issues";
import { createMilestone, deleteMilestone, listMilestones, updateMilestone, type MilestoneFilters } from "./milestones";

describe.each(testDatabases())("milestones on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  async function team() {
    const [owner, guest] = await Promise.all([1, 2].map(() => createTestUser(handle.db)));
    const ownerCtx = userContext(handle.db, owner!);
    const view = await createProject(ownerCtx, { name: `Milestones ${uniqueSuffix()}` });
    const project = String(view.project.id);
    await addMember(ownerCtx, project, { userId: guest!.id, accessLevel: 10 });
    const at = (instant: string) => ({ ...ownerCtx, now: new Date(instant) });
    const v1 = await createMilestone(at("2024-01-01T00:00:00Z"), project, { title: "v1.0", description: "First release", dueDate: "2024-03-01" });
    const v2 = await createMilestone(at("2024-01-02T00:00:00Z"), project, { title: "v2.0", dueDate: "2024-02-01" });
    const someday = await createMilestone(at("2024-01-03T00:00:00Z"), project, { title: "Someday" });
    await updateMilestone(at("2024-01-10T00:00:00Z"), project, v1.milestone.id, { stateEvent: "close" });
    return { owner: owner!, guest: guest!, view, project, ownerCtx, v1, v2, someday };
  }

  it("lists by due date (undated last), filtered by state, iids, exact title, search and update time", async () => {
    const { project, ownerCtx, v1, someday } = await team();
    const titles = async (filters: MilestoneFilters) => (await listMilestones(ownerCtx, project, filters, pageRequest({}))).items.map(({ milestone }) => milestone.title);
    expect(await titles({})).toEqual(["v2.0", "v1.0", "Someday"]);
    expect(await titles({ state: "active" })).toEqual(["v2.0", "Someday"]);
    expect(await titles({ state: "closed" })).toEqual(["v1.0"]);
    expect(await titles({ iids: [v1.milestone.iid, someday.milestone.iid] })).toEqual(["v1.0", "Someday"]);
    expect(await titles({ iids: [9_999_999_999] })).toEqual([]);
    expect(await titles({ title: "v2.0" })).toEqual(["v2.0"]);
    expect(await titles({ title: "v2" })).toEqual([]);
    expect(await titles({ search: "release" })).toEqual(["v1.0"]);
    expect(await titles({ search: "some" })).toEqual(["Someday"]);
    expect(await titles({ updatedAfter: new Date("2024-01-05T00:00:00Z") })).toEqual(["v1.0"]);
    expect(await titles({ updatedBefore: new Date("2024-01-02T00:00:00Z") })).toEqual(["v2.0"]);
  });

  it("deleting a milestone takes it off its issues, records `destroyed` and unhooks its events; Guests may not", async () => {
    const { project, view, ownerCtx, guest, v2 } = await team();
    const { issue } = await createIssue(ownerCtx, project, { title: "Planned", milestoneId: v2.milestone.id });
    await expect(deleteMilestone(userContext(handle.db, guest), project, v2.milestone.id)).rejects.toBeInstanceOf(ForbiddenError);
    const deletedAt = new Date("2030-01-01T00:00:00Z");
    await deleteMilestone({ ...ownerCtx, now: deletedAt }, project, v2.milestone.id);
    expect(await handle.db.select().from(milestones).where(eq(milestones.id, v2.milestone.id))).toEqual([]);
    const after = await getIssue(ownerCtx, project, issue.iid);
    expect(after.milestone).toBeNull();
    expect(after.issue.updatedAt).toEqual(deletedAt);
    const milestoneEvents = await handle.db
      .select({ action: events.action, targetId: events.targetId, targetTitle: events.targetTitle })
      .from(events)
      .where(and(eq(events.projectId, view.project.id), eq(events.targetType, "Milestone"), eq(events.targetIid, v2.milestone.iid)));
    expect(milestoneEvents).toEqual([
      { action: "created", targetId: null, targetTitle: "v2.0" },
      { action: "destroyed", targetId: null, targetTitle: "v2.0" },
    ]);
    await expect(deleteMilestone(ownerCtx, project, v2.milestone.id)).rejects.toEqual(new NotFoundError("Milestone"));
  });
});
