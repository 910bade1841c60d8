import "server-only";
import type { Executor } from "@/lib/db";
import { eq, sql } from "drizzle-orm";
import { namespaces, projects, users, type IssueRow, type MilestoneRow, type NoteRow, type ProjectMemberRow, type UserRow } from "@/lib/db/schema";
import type { FiredChatEvent } from "@/lib/integrations/catalog";
import { enqueueChatNotifications, integrationsTake } from "@/lib/integrations/enqueue";
import { assigneesOfIssues } from "@/lib/issues/assignees";
import { labelsOfIssues } from "@/lib/issues/labels";
import type { ProjectView } from "@/lib/projects/projects";
import { enqueueHookDeliveries, hooksTake } from "./enqueue";
import {
  issueChanges,
  issueHookData,
  memberHookData,
  milestoneHookData,
  noteHookData,
  noteIsConfidential,
  type IssueHookAction,
  type IssueState,
  type MemberHookEvent,
  type MilestoneHookAction,
} from "./payloads";

/**
 * What the project's changes send outside: each function is called in the transaction of the change, next to its
 * `recordEvent`, and writes the webhook deliveries (one insert for all the project's hooks that take the event) and
 * the chat integrations' messages only when a hook or an integration would take it, so a project with neither pays
 * one lookup.
 */

type Actor = Pick<UserRow, "id" | "name" | "username">;
export type ProjectRef = Pick<ProjectView, "project" | "namespace">;

/** An issue's labels and assignees as they stand in the transaction. */
export async function issueStateOf(tx: Executor, issue: IssueRow): Promise<IssueState> {
  const [labels, assignees] = await Promise.all([labelsOfIssues(tx, [issue.id]), assigneesOfIssues(tx, [issue.id])]);
  return {
    issue,
    labels: (labels.get(issue.id) ?? []).sort((a, b) => a.id - b.id),
    assignees: assignees.get(issue.id) ?? [],
  };
}

export interface Listeners {
  hooks: boolean;
  integrations: boolean;
}

/** Whether hooks of the project take any of `hooks` now, and its chat integrations any of `integrations`: one statement. */
export async function listenersOf(
  tx: Executor,
  projectId: number,
  wanted: { hooks: Parameters<typeof hooksTake>[1]; integrations: readonly FiredChatEvent[] },
  now: Date,
): Promise<Listeners> {
  const [row] = await tx
    .select({ hooks: sql<boolean>`${hooksTake(projectId, wanted.hooks, now)}`, integrations: sql<boolean>`${integrationsTake(projectId, wanted.integrations)}` })
    .from(projects)
    .where(eq(projects.id, projectId));
  return { hooks: row?.hooks === true, integrations: row?.integrations === true };
}

/**
 * Whether any hook or chat integration of the project takes issue events (any kind); read before a change to keep
 * its prior state.
 */
export async function projectTakesIssueEvents(tx: Executor, projectId: number, now: Date): Promise<boolean> {
  const listeners = await listenersOf(tx, projectId, { hooks: ["issue_hooks", "confidential_issue_hooks"], integrations: ["issue", "confidential_issue", "incident"] }, now);
  return listeners.hooks || listeners.integrations;
}

/** The chat events of an issue's change: none for an edit (GitLab sends none), and an incident's own besides. */
function issueChatEvents(issue: Pick<IssueRow, "confidential" | "issueType">, action: IssueHookAction): ("issue" | "confidential_issue" | "incident")[] {
  if (action === "update") return [];
  return [issue.confidential ? "confidential_issue" : "issue", ...(issue.issueType === "incident" ? (["incident"] as const) : [])];
}

function issueHookTrigger(issue: Pick<IssueRow, "confidential">) {
  return issue.confidential ? "confidential_issue_hooks" : "issue_hooks";
}

/**
 * Asks, ahead of the change, whether the project's hooks and chat integrations take an issue change of this kind: the
 * answer does not depend on the rows the change writes, so the question goes out with the transaction's first
 * statement (postgres.js pipelines a transaction's concurrent queries) instead of adding a round trip while the change
 * holds its project's counter. Pass the promise to `issueHooks`; it is safe to leave unawaited if the change fails.
 */
export function issueListeners(
  tx: Executor,
  change: { projectId: number; issue: Pick<IssueRow, "confidential" | "issueType">; action: IssueHookAction; now: Date },
): Promise<Listeners> {
  const asked = listenersOf(tx, change.projectId, { hooks: [issueHookTrigger(change.issue)], integrations: issueChatEvents(change.issue, change.action) }, change.now);
  // The transaction reports a failure itself; this keeps an answer nobody waits for from being an unhandled rejection.
  asked.catch(() => {});
  return asked;
}

/** The state of an issue just written with no labels and no assignees, which needs no lookup. */
export function bareIssueState(issue: IssueRow): IssueState {
  return { issue, labels: [], assignees: [] };
}

/**
 * An issue opened, closed, reopened or edited. `before` is its state before the change (null for a new issue), and
 * `after` its state now when the caller knows it (else it is read); a confidential issue goes to the hooks that take
 * confidential issue events only. `listeners` is the question `issueListeners` asked ahead, else it is asked now.
 * Called with the project's counters locked, so it adds as few round trips as it can.
 */
export async function issueHooks(
  tx: Executor,
  change: {
    view: ProjectRef;
    actor: Actor;
    before: IssueState | null;
    after?: IssueState;
    issue: IssueRow;
    action: IssueHookAction;
    now: Date;
    listeners?: Promise<Listeners>;
  },
): Promise<void> {
  const trigger = issueHookTrigger(change.issue);
  const chatEvents = issueChatEvents(change.issue, change.action);
  const listeners = await (change.listeners ?? issueListeners(tx, { projectId: change.view.project.id, issue: change.issue, action: change.action, now: change.now }));
  if (!listeners.hooks && !listeners.integrations) return;
  const after = change.after ?? (await issueStateOf(tx, change.issue));
  const changes = issueChanges(change.before, after);
  if (change.action === "update" && Object.keys(changes).length === 0) return;
  const data = issueHookData(change.view, change.actor, after, change.action, changes);
  if (listeners.hooks) await enqueueHookDeliveries(tx, { projectId: change.view.project.id, trigger, data, now: change.now });
  if (!listeners.integrations) return;
  for (const event of chatEvents) {
    // GitLab's incident hooks carry the issue's data as an incident's.
    const eventData = event === "incident" ? { ...data, object_kind: "incident", event_type: "incident" } : data;
    await enqueueChatNotifications(tx, { view: change.view, notification: { event, data: eventData }, now: change.now });
  }
}

/** A comment written or edited; one on a confidential issue, or an internal one, goes to confidential note hooks. */
export async function noteHooks(
  tx: Executor,
  change: { view: ProjectRef; actor: Actor; note: NoteRow; issue: IssueRow; action: "create" | "update"; now: Date },
): Promise<void> {
  if (change.note.system) return;
  const confidential = noteIsConfidential(change.note, change.issue);
  const trigger = confidential ? "confidential_note_hooks" : "note_hooks";
  const event = confidential ? "confidential_note" : "note";
  const listeners = await listenersOf(tx, change.view.project.id, { hooks: [trigger], integrations: [event] }, change.now);
  if (!listeners.hooks && !listeners.integrations) return;
  const data = noteHookData(change.view, change.actor, change.note, await issueStateOf(tx, change.issue), change.action);
  if (listeners.hooks) await enqueueHookDeliveries(tx, { projectId: change.view.project.id, trigger, data, now: change.now });
  if (listeners.integrations) await enqueueChatNotifications(tx, { view: change.view, notification: { event, data }, now: change.now });
}

export async function milestoneHooks(
  tx: Executor,
  change: { view: ProjectRef; milestone: MilestoneRow; action: MilestoneHookAction; now: Date },
): Promise<void> {
  await enqueueHookDeliveries(tx, {
    projectId: change.view.project.id,
    trigger: "milestone_hooks",
    data: milestoneHookData(change.view, change.milestone, change.action),
    now: change.now,
  });
}

/**
 * A membership removed by the service itself (the scheduled job, because it expired; a user's deletion): GitLab's
 * `user_remove_from_project` to the project's member hooks, as when someone is removed by hand (GitLab's expiry and
 * user deletion go through the same destroy callbacks). The project and the user are read only when a hook takes
 * member events.
 */
export async function removedMemberHooks(
  tx: Executor,
  change: { projectId: number; member: Pick<ProjectMemberRow, "userId" | "accessLevel" | "expiresAt" | "createdAt">; now: Date },
): Promise<void> {
  if (!(await listenersOf(tx, change.projectId, { hooks: ["member_hooks"], integrations: [] }, change.now)).hooks) return;
  const [row] = await tx
    .select({ project: projects, namespace: namespaces, user: users })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .innerJoin(users, eq(users.id, change.member.userId))
    .where(eq(projects.id, change.projectId));
  if (!row) return;
  await memberHooks(tx, {
    view: { project: row.project, namespace: row.namespace },
    member: change.member,
    user: row.user,
    eventName: "user_remove_from_project",
    now: change.now,
  });
}

export async function memberHooks(
  tx: Executor,
  change: {
    view: ProjectRef;
    member: Pick<ProjectMemberRow, "accessLevel" | "expiresAt" | "createdAt">;
    user: Actor;
    eventName: MemberHookEvent;
    now: Date;
  },
): Promise<void> {
  await enqueueHookDeliveries(tx, {
    projectId: change.view.project.id,
    trigger: "member_hooks",
    data: memberHookData(change.view, change.member, change.user, change.eventName, change.now),
    now: change.now,
  });
}
