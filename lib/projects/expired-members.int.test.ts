import { describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { events, projectMembers } from "@/lib/db/schema";
import { maintainedEventCount } from "@/lib/testing/event-counts";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { removeExpiredMemberships, runMembershipExpiry } from "./expired-members";
import { addMember } from "./members";
import { createProject } from "./projects";

describe.each(testDatabases())("removing expired memberships on $name", ({ name, open }) => {
  const handle = databaseForSuite(open);
  const jan1 = new Date("2030-01-01T00:00:00.000Z");

  /** A project with members whose memberships end on the given days (null: never). */
  async function projectWithMembers(endDays: (string | null)[]) {
    const owner = await createTestUser(handle.db);
    const view = await createProject({ ...userContext(handle.db, owner), now: jan1 }, { name: `Expiry ${uniqueSuffix()}` });
    const members = [];
    for (const expiresAt of endDays) {
      const member = await createTestUser(handle.db);
      await addMember({ ...userContext(handle.db, owner), now: jan1 }, String(view.project.id), { userId: member.id, accessLevel: 30, expiresAt });
      members.push(member);
    }
    return { projectId: view.project.id, owner, members };
  }

  async function memberIds(projectId: number) {
    const rows = await handle.db.select({ userId: projectMembers.userId }).from(projectMembers).where(eq(projectMembers.projectId, projectId));
    return rows.map((row) => row.userId).sort((a, b) => a - b);
  }

  async function expiredEvents(projectId: number) {
    return handle.db
      .select({ authorId: events.authorId, targetType: events.targetType, createdAt: events.createdAt })
      .from(events)
      .where(and(eq(events.projectId, projectId), eq(events.action, "expired")))
      .orderBy(events.id);
  }

  const eventCount = (projectId: number) => maintainedEventCount(handle.db, projectId);

  it("removes every membership whose end day has begun, in batches, each with an `expired` event by the member", async () => {
    const { projectId, owner, members } = await projectWithMembers(["2030-02-10", "2030-02-09", "2030-02-11", null, "2030-01-20", "2030-02-10"]);
    const [endsToday, endedYesterday, endsTomorrow, endless, endedLongAgo, alsoToday] = members as [typeof owner, typeof owner, typeof owner, typeof owner, typeof owner, typeof owner];
    // created + six joined
    expect(await eventCount(projectId)).toBe(7);
    const now = new Date("2030-02-10T00:00:00.000Z");

    const removed = await removeExpiredMemberships(handle.db, now, 2);
    expect(removed).toBeGreaterThanOrEqual(4);
    expect(await memberIds(projectId)).toEqual([owner.id, endsTomorrow.id, endless.id].sort((a, b) => a - b));
    const recorded = await expiredEvents(projectId);
    expect(recorded.map((event) => event.authorId).sort((a, b) => a - b)).toEqual(
      [endsToday.id, endedYesterday.id, endedLongAgo.id, alsoToday.id].sort((a, b) => a - b),
    );
    for (const event of recorded) expect(event).toMatchObject({ targetType: null, createdAt: now });
    expect(await eventCount(projectId)).toBe(11);

    // Nothing left to do until the next day begins.
    expect(await removeExpiredMemberships(handle.db, new Date("2030-02-10T23:59:59.999Z"))).toBe(0);
    expect(await removeExpiredMemberships(handle.db, new Date("2030-02-11T00:00:00.000Z"))).toBeGreaterThanOrEqual(1);
    expect(await memberIds(projectId)).toEqual([owner.id, endless.id].sort((a, b) => a - b));
    expect((await expiredEvents(projectId)).map((event) => event.authorId)).toContain(endsTomorrow.id);
  });

  it("removes a membership only together with its event: no event, no removal", async () => {
    const { projectId, members } = await projectWithMembers(["2030-01-05"]);
    await handle.db.execute(sql`alter table events rename to events_unavailable`);
    try {
      await expect(removeExpiredMemberships(handle.db, new Date("2030-01-06T00:00:00Z"))).rejects.toThrow();
    } finally {
      await handle.db.execute(sql`alter table events_unavailable rename to events`);
    }
    expect(await memberIds(projectId)).toContain(members[0]!.id);
  });

  it("runs under its own lock, one process at a time", async () => {
    const { projectId, owner } = await projectWithMembers(["2030-01-05"]);
    const run = await runMembershipExpiry(handle, new Date("2030-01-06T00:00:00Z"));
    expect(run.ran).toBe(true);
    expect(run.removed).toBeGreaterThanOrEqual(1);
    expect(await memberIds(projectId)).toEqual([owner.id]);

    if (name === "postgres") {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = handle.runExclusive(727_003, () => held.then(() => "first"));
      // Give the first run time to take the lock on its own connection.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await runMembershipExpiry(handle, new Date("2030-01-06T00:00:00Z"))).toEqual({ ran: false, removed: 0 });
      // The event pruning's lock is another one: it is not held up.
      expect((await handle.runExclusive(727_002, async () => "pruning")) ?? "blocked").toBe("pruning");
      release();
      expect(await first).toBe("first");
    }
  });
});
