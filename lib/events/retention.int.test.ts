import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { events } from "@/lib/db/schema";
import { maintainedEventCount } from "@/lib/testing/event-counts";
import { createProject } from "@/lib/projects/projects";
import { databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { createTestUser, uniqueSuffix, userContext } from "@/lib/testing/fixtures";
import { recordEvent } from "./record";
import { pruneEventsBefore, pruneExpiredEvents, retentionCutoff } from "./retention";

const day = 24 * 60 * 60 * 1000;

describe.each(testDatabases())("event retention on $name", ({ name, open }) => {
  const handle = databaseForSuite(open);

  async function projectWithEvents(ages: number[], now: Date) {
    const owner = await createTestUser(handle.db);
    const view = await createProject({ ...userContext(handle.db, owner), now }, { name: `Retention ${uniqueSuffix()}` });
    for (const ageDays of ages) {
      await recordEvent(handle.db, { projectId: view.project.id, authorId: owner.id, action: "updated", createdAt: new Date(now.getTime() - ageDays * day) });
    }
    return view.project.id;
  }

  async function agesOf(projectId: number, now: Date) {
    const rows = await handle.db.select({ createdAt: events.createdAt }).from(events).where(eq(events.projectId, projectId)).orderBy(events.createdAt);
    return rows.map((row) => Math.round((now.getTime() - row.createdAt.getTime()) / day));
  }

  it("deletes everything older than the cutoff in small batches and keeps the rest", async () => {
    const now = new Date("2030-06-01T00:00:00Z");
    const projectId = await projectWithEvents([1200, 1100, 1000, 900, 800, 740, 731, 729, 365, 1], now);
    const deleted = await pruneEventsBefore(handle.db, retentionCutoff(now, 730), { batchSize: 2, pauseMs: 0 });
    expect(deleted).toBe(7);
    // The project's own `created` event is new (age 0).
    expect(await agesOf(projectId, now)).toEqual([729, 365, 1, 0]);
    // The project's maintained event count follows the deletions.
    expect(await maintainedEventCount(handle.db, projectId)).toBe(4);
    expect(await pruneEventsBefore(handle.db, retentionCutoff(now, 730), { batchSize: 2, pauseMs: 0 })).toBe(0);
  });

  it("the scheduled run uses the two-year retention and takes turns across processes", async () => {
    const now = new Date();
    const projectId = await projectWithEvents([1000, 10], now);
    const run = await pruneExpiredEvents(handle, now, { pauseMs: 0 });
    expect(run.ran).toBe(true);
    expect(run.deleted).toBeGreaterThanOrEqual(1);
    expect(new Date(run.cutoff).getTime()).toBe(now.getTime() - 730 * day);
    expect(await agesOf(projectId, now)).toEqual([10, 0]);

    if (name === "postgres") {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = handle.runExclusive(727_002, () => held.then(() => "first"));
      // Give the first run time to take the lock on its own connection.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = await pruneExpiredEvents(handle, now);
      expect(second).toMatchObject({ ran: false, deleted: 0 });
      release();
      expect(await first).toBe("first");
      expect((await pruneExpiredEvents(handle, now)).ran).toBe(true);
    }
  });
});
