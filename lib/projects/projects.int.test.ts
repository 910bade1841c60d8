import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { events } from "@/lib/db/schema";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { createProject, getVisibleProject } from "./projects";

describe.each(testDatabases())("projects on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  it("creates a project in the caller's namespace, makes them Owner and records `created` in the same transaction", async () => {
    const owner = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, owner), { name: `Demo ${uniqueSuffix()}` });
    expect(view.namespace.path).toBe(owner.username);
    expect(view.accessLevel).toBe(50);
    const recorded = await handle.db.select().from(events).where(eq(events.projectId, view.project.id));
    expect(recorded).toMatchObject([{ action: "created", authorId: owner.id, targetType: null }]);
  });

  it("finds a project by id and by namespace/path, case-insensitively", async () => {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    const view = await createProject(ctx, { path: `p-${uniqueSuffix()}` });
    expect((await getVisibleProject(ctx, String(view.project.id))).project.id).toBe(view.project.id);
    const reference = `${owner.username.toUpperCase()}/${view.project.path}`;
    expect((await getVisibleProject(ctx, reference)).project.id).toBe(view.project.id);
  });

  it("hides private projects from non-members as if they did not exist", async () => {
    const owner = await createTestUser(handle.db);
    const stranger = await createTestUser(handle.db);
    const view = await createProject(userContext(handle.db, owner), { name: `Secret ${uniqueSuffix()}` });
    await expect(getVisibleProject(userContext(handle.db, stranger), String(view.project.id))).rejects.toThrow(NotFoundError);
    await expect(getVisibleProject(anonymousTestContext(handle.db), String(view.project.id))).rejects.toThrow(NotFoundError);
  });

  it("refuses a second project with the same path in one namespace", async () => {
    const owner = await createTestUser(handle.db);
    const ctx = userContext(handle.db, owner);
    await createProject(ctx, { path: "same" });
    await expect(createProject(ctx, { path: "SAME" })).rejects.toThrow(ValidationError);
  });
});
