import "server-only";
import { eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { events, projectEventCounts, projects, type EventAction, type EventTargetType } from "@/lib/db/schema";

export interface NewEvent {
  projectId: number | null;
  authorId: number;
  action: EventAction;
  targetType?: EventTargetType | null;
  targetId?: number | null;
  targetIid?: number | null;
  targetTitle?: string | null;
  /** For Issue and Note events: the issue, whose confidentiality decides who may see the event. */
  issueId?: number | null;
  /** A comment in an internal note: the event is shown only to those who may read internal notes. */
  internal?: boolean;
  data?: unknown;
  createdAt: Date;
}

/**
 * Records an event. Call it with the transaction that makes the change, so the event exists exactly when the change
 * does. A project event also moves the project's last activity time and its event count.
 */
export async function recordEvent(tx: Executor, event: NewEvent): Promise<void> {
  await tx.insert(events).values({
    projectId: event.projectId,
    authorId: event.authorId,
    action: event.action,
    targetType: event.targetType ?? null,
    targetId: event.targetId ?? null,
    targetIid: event.targetIid ?? null,
    targetTitle: event.targetTitle ?? null,
    issueId: event.issueId ?? null,
    internal: event.internal ?? false,
    data: event.data ?? null,
    createdAt: event.createdAt,
  });
  if (event.projectId !== null) {
    await tx.update(projects).set({ lastActivityAt: event.createdAt }).where(eq(projects.id, event.projectId));
    await tx
      .insert(projectEventCounts)
      .values({ projectId: event.projectId, eventCount: 1 })
      .onConflictDoUpdate({ target: projectEventCounts.projectId, set: { eventCount: sql`${projectEventCounts.eventCount} + 1` } });
  }
}

/**
 * Deletes the events matching `where` (over `events`) in the caller's transaction, keeping each project's event count
 * in step. Returns how many went.
 */
export async function deleteEvents(tx: Executor, where: SQL): Promise<number> {
  const rows = await tx.delete(events).where(where).returning({ projectId: events.projectId });
  const perProject = new Map<number, number>();
  for (const { projectId } of rows) if (projectId !== null) perProject.set(projectId, (perProject.get(projectId) ?? 0) + 1);
  for (const [projectId, removedCount] of perProject) {
    await tx
      .update(projectEventCounts)
      .set({ eventCount: sql`greatest(${projectEventCounts.eventCount} - ${removedCount}, 0)` })
      .where(eq(projectEventCounts.projectId, projectId));
  }
  return rows.length;
}
