import "server-only";
import type { EventRow } from "@/lib/db/schema";
import { serializeUserBasic, type UserSummary } from "@/lib/users/serialize";

export interface EventView {
  event: EventRow;
  author: UserSummary;
}

/** GitLab's `action_name`: what the activity feed says, which differs from the `action` filter values. */
export function actionName(event: Pick<EventRow, "action" | "targetType" | "data">): string {
  switch (event.action) {
    case "pushed": {
      const action = (event.data as { push_data?: { action?: string } } | null)?.push_data?.action;
      return action === "created" ? "pushed new" : action === "removed" ? "deleted" : "pushed to";
    }
    case "closed":
      return "closed";
    case "merged":
      return "accepted";
    case "joined":
      return "joined";
    case "left":
      return "left";
    case "expired":
      return "removed due to membership expiration from";
    case "destroyed":
      return "destroyed";
    case "commented":
      return "commented on";
    case "approved":
      return "approved";
    case "created":
      return event.targetType === null ? "created" : "opened";
    default:
      // Reopened issues and milestones, and updates, read "opened" in GitLab.
      return "opened";
  }
}

/** An event as GitLab's Events API shows it; `push_data` and `note` appear only on push and comment events. */
export function serializeEvent({ event, author }: EventView) {
  const data = (event.data ?? {}) as { push_data?: unknown; note?: Record<string, unknown> };
  const authorBasic = serializeUserBasic(author);
  return {
    id: event.id,
    title: null,
    project_id: event.projectId,
    action_name: actionName(event),
    target_id: event.targetId,
    target_iid: event.targetIid,
    target_type: event.targetType,
    author_id: event.authorId,
    target_title: event.targetTitle,
    created_at: event.createdAt.toISOString(),
    author: authorBasic,
    ...(event.action === "pushed" && data.push_data ? { push_data: data.push_data } : {}),
    ...(event.action === "commented" && data.note
      ? {
          note: {
            ...data.note,
            type: null,
            attachment: null,
            author: authorBasic,
            noteable_type: "Issue",
            project_id: event.projectId,
          },
        }
      : {}),
    author_username: author.username,
  };
}
