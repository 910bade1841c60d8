import "server-only";
import { and, eq, lte, type SQL } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { events, projects, type EventAction, type EventTargetType } from "@/lib/db/schema";

export interface NewEvent {
  projectId: number | null;
  /** A group's own event (created, joined, left, expired); then `projectId` is null. */
  groupId?: number | null;
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
 * GitLab's `Event::RESET_PROJECT_ACTIVITY_INTERVAL`: a project's last activity time moves at most this often, so a
 * busy project's events do not all queue to rewrite its row.
 */
const projectActivityInterval = 60 * 60 * 1000;

/**
 * Records an event. Call it with the transaction that makes the change, so the event exists exactly when the change
 * does. The database sets who may see it and counts a project's events (drizzle/0014_event_audiences.sql); a project
 * event also moves the project's last activity time, if that is more than an hour old.
 */
export async function recordEvent(tx: Executor, event: NewEvent): Promise<void> {
  // Both statements go out together (postgres.js pipelines a transaction's concurrent queries): one round trip, not
  // two, while the change's locks are held.
  await Promise.all([
    tx.insert(events).values({
      projectId: event.projectId,
      groupId: event.groupId ?? null,
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
    }),
    event.projectId === null
      ? undefined
      : tx
          .update(projects)
          .set({ lastActivityAt: event.createdAt })
          .where(
            and(eq(projects.id, event.projectId), lte(projects.lastActivityAt, new Date(event.createdAt.getTime() - projectActivityInterval))),
          ),
  ]);
}

/**
 * Deletes the events matching `where` (over `events`) in the caller's transaction; the database keeps the counts in
 * step. Returns how many went.
 */
export async function deleteEvents(tx: Executor, where: SQL): Promise<number> {
  const rows = await tx.delete(events).where(where).returning({ id: events.id });
  return rows.length;
}
