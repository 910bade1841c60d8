import { existsSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { eq, sql } from "drizzle-orm";
import { getAlertBot } from "@/lib/alerts/bot";
import { authenticateToken } from "@/lib/api/authenticate";
import { events, issueAssignees, issues, notes, outboxMessages, projectMembers, projects, users, type UserRow } from "@/lib/db/schema";
import { ForbiddenError, NotFoundError } from "@/lib/errors";
import { repositoryPath } from "@/lib/git/repositories";
import { createIssue, updateIssue } from "@/lib/issues/issues";
import { createNote } from "@/lib/issues/notes";
import { leaseMessages } from "@/lib/outbox/outbox";
import { addMember } from "@/lib/projects/members";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { anonymousTestContext, apiFailure, createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { pushBranches } from "@/lib/testing/git";
import { deleteUserStep, scheduleUserDeletion, userDeletionHandler, userDeletionTopic, type UserDeletion } from "./deletion";
import { insertPersonalAccessToken } from "./personal-access-tokens";

// Repositories are named by project id, which every fresh test database starts again: each run gets its own root.
const repositoriesRoot = vi.hoisted(() => (process.env.REPOSITORIES_DIR = `${process.env.TMPDIR ?? "/tmp"}/deletion-test-repositories-${process.pid}-${Date.now()}`));

describe.each(testDatabases())("deleting users on $name", ({ open }) => {
  const handle = databaseForSuite(open);
  afterAll(() => rmSync(repositoriesRoot, { recursive: true, force: true }));
  const as = (user: UserRow) => userContext(handle.db, user);
  const admin = async () => as(await createTestUser(handle.db, { isAdmin: true }));
  const userRow = async (id: number) => (await handle.db.select().from(users).where(eq(users.id, id)))[0];

  /** Runs the deletion's steps as the worker would, until the user is gone; answers how many steps it took. */
  async function runDeletion(deletion: UserDeletion): Promise<number> {
    for (let steps = 1; ; steps += 1) {
      if (await deleteUserStep(handle.db, deletion, async () => {})) return steps;
      if (steps > 1000) throw new Error("the deletion never ended");
    }
  }

  /**
   * A user who did a bit of everything: owns a personal project (with a repository), is a Developer in someone else's
   * project, opened an issue there and commented on its owner's, closed that issue, and is assigned to it.
   */
  async function busyUser() {
    const user = await createTestUser(handle.db);
    const owner = await createTestUser(handle.db);
    const personal = await createProject(as(user), { name: `Mine ${uniqueSuffix()}` });
    await pushBranches(personal.project.id, { main: 1 });
    const shared = await createProject(as(owner), { name: `Shared ${uniqueSuffix()}` });
    const reference = String(shared.project.id);
    await addMember(as(owner), reference, { userId: user.id, accessLevel: 30 });
    const ownersIssue = await createIssue(as(owner), reference, { title: "Owner's issue", assigneeIds: [user.id] });
    const usersIssue = await createIssue(as(user), reference, { title: "User's issue" });
    const note = await createNote(as(user), reference, ownersIssue.issue.iid, { body: "A comment" });
    await updateIssue(as(user), reference, ownersIssue.issue.iid, { stateEvent: "close" });
    return { user, owner, personal, shared, ownersIssue: ownersIssue.issue, usersIssue: usersIssue.issue, note: note.note };
  }

  it("is for admins only; 404 for nobody", async () => {
    const target = await createTestUser(handle.db);
    for (const ctx of [as(await createTestUser(handle.db)), anonymousTestContext(handle.db)]) {
      await expect(scheduleUserDeletion(ctx, target.id, { hardDelete: false })).rejects.toThrow(ForbiddenError);
    }
    await expect(scheduleUserDeletion(await admin(), 2_147_483_647, { hardDelete: false })).rejects.toThrow(NotFoundError);
    expect((await userRow(target.id))?.state).toBe("active");
  });

  it("blocks the account at once, so its tokens stop working, and leaves the deletion to the outbox", async () => {
    const ctx = await admin();
    const user = await createTestUser(handle.db);
    const { token } = await insertPersonalAccessToken(handle.db, user.id, { name: "t", scopes: ["api"] }, new Date());
    expect((await authenticateToken(handle.db, { value: token, bearer: false }, new Date())).kind).toBe("user");
    await scheduleUserDeletion(ctx, user.id, { hardDelete: true });
    expect(await userRow(user.id)).toMatchObject({ state: "blocked", sessionVersion: 2 });
    const refusal = await apiFailure(authenticateToken(handle.db, { value: token, bearer: false }, new Date()));
    expect([refusal.status, refusal.body()]).toEqual([403, { message: "403 Forbidden - Your account has been blocked." }]);
    const messages = await handle.db.select().from(outboxMessages).where(eq(outboxMessages.orderingKey, `${userDeletionTopic}:${user.id}`));
    expect(messages.map((message) => [message.topic, message.payload])).toEqual([
      [userDeletionTopic, { userId: user.id, deletedById: ctx.actor.kind === "user" ? ctx.actor.user.id : null, hardDelete: true }],
    ]);
  });

  it("without hard_delete: the ghost user keeps what they wrote; their projects, memberships and events go", async () => {
    const t = await busyUser();
    await runDeletion({ userId: t.user.id, deletedById: null, hardDelete: false });

    expect(await userRow(t.user.id)).toBeUndefined();
    const [ghost] = await handle.db.select().from(users).where(eq(users.userType, "ghost"));
    expect(ghost).toMatchObject({ username: expect.stringMatching(/^ghost\d*$/), name: "Ghost User" });
    const [issue] = await handle.db.select().from(issues).where(eq(issues.id, t.usersIssue.id));
    expect(issue).toMatchObject({ authorId: ghost!.id, updatedAt: t.usersIssue.updatedAt });
    const [note] = await handle.db.select().from(notes).where(eq(notes.id, t.note.id));
    expect(note?.authorId).toBe(ghost!.id);
    const [closed] = await handle.db.select().from(issues).where(eq(issues.id, t.ownersIssue.id));
    expect(closed).toMatchObject({ authorId: t.owner.id, closedById: null, state: "closed" });
    expect(await handle.db.select().from(issueAssignees).where(eq(issueAssignees.issueId, t.ownersIssue.id))).toEqual([]);
    expect(await handle.db.select().from(events).where(eq(events.authorId, t.user.id))).toEqual([]);
    expect(await handle.db.select().from(projects).where(eq(projects.id, t.personal.project.id))).toEqual([]);
    expect(existsSync(repositoryPath(t.personal.project.id))).toBe(false);
    expect((await handle.db.select().from(projects).where(eq(projects.id, t.shared.project.id))).length).toBe(1);
    expect(await handle.db.select().from(projectMembers).where(eq(projectMembers.userId, t.user.id))).toEqual([]);
  });

  it("with hard_delete: what they wrote goes too", async () => {
    const t = await busyUser();
    await runDeletion({ userId: t.user.id, deletedById: null, hardDelete: true });
    expect(await userRow(t.user.id)).toBeUndefined();
    expect(await handle.db.select().from(issues).where(eq(issues.id, t.usersIssue.id))).toEqual([]);
    expect(await handle.db.select().from(notes).where(eq(notes.id, t.note.id))).toEqual([]);
    expect((await handle.db.select().from(issues).where(eq(issues.id, t.ownersIssue.id))).length).toBe(1);
  });

  it("works in bounded batches: a user with many events takes several steps", async () => {
    const user = await createTestUser(handle.db);
    const project = await createProject(as(await createTestUser(handle.db)), { name: `Busy ${uniqueSuffix()}`, visibility: "public" });
    await handle.db.execute(
      sql`insert into ${events} (project_id, author_id, action) select ${project.project.id}, ${user.id}, 'joined' from generate_series(1, 450)`,
    );
    expect(await runDeletion({ userId: user.id, deletedById: null, hardDelete: false })).toBeGreaterThanOrEqual(4);
    expect(await userRow(user.id)).toBeUndefined();
  });

  it("never deletes internal users, and a deletion of a user already gone just ends", async () => {
    const ctx = await admin();
    const bot = await getAlertBot(handle.db);
    await scheduleUserDeletion(ctx, bot.id, { hardDelete: false });
    expect(await userRow(bot.id)).toMatchObject({ state: "active" });
    expect(await handle.db.select().from(outboxMessages).where(eq(outboxMessages.orderingKey, `${userDeletionTopic}:${bot.id}`))).toEqual([]);
    expect(await runDeletion({ userId: 2_147_483_647, deletedById: null, hardDelete: false })).toBe(1);
  });

  it("the outbox handler deletes the user and completes its message in the same transaction", async () => {
    const ctx = await admin();
    const { user } = await busyUser();
    await scheduleUserDeletion(ctx, user.id, { hardDelete: false });
    const leased = await leaseMessages(handle.db, { topics: [userDeletionTopic], limit: 10, leaseMs: 60_000 });
    const message = leased.find((candidate) => candidate.payload.userId === user.id);
    expect(message).toBeDefined();
    for (const each of leased) await userDeletionHandler()(handle, each);
    expect(await userRow(user.id)).toBeUndefined();
    expect(await handle.db.select().from(outboxMessages).where(eq(outboxMessages.topic, userDeletionTopic))).toEqual([]);
  });
});
