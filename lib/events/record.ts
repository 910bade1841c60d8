import "server-only";
import { eq, sql } from "drizzle-orm";
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
