/** What a push did to one ref, as git's hooks report it (`<old> <new> <ref>`). Pure. */
export interface RefUpdate {
  oldSha: string;
  newSha: string;
  ref: string;
}

export type PushAction = "created" | "removed" | "pushed";
export type RefType = "branch" | "tag";

/** GitLab's push payload (`push_data` of a push event). */
export interface PushData {
  commit_count: number;
  action: PushAction;
  ref_type: RefType;
  commit_from: string | null;
  commit_to: string | null;
  /** Null for a bulk event, which names no ref. */
  ref: string | null;
  commit_title: string | null;
  /** How many refs a bulk event stands for; null for an event about one ref. */
  ref_count: number | null;
}

const zeroSha = /^0+$/;
const updateLine = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (refs\/\S+)$/;

export function isZeroSha(sha: string): boolean {
  return zeroSha.test(sha);
}

/** The lines a post-receive hook received; anything that is not an update line is ignored. */
export function parseRefUpdates(text: string): RefUpdate[] {
  const updates: RefUpdate[] = [];
  for (const line of text.split("\n")) {
    const match = updateLine.exec(line.trim());
    if (match) updates.push({ oldSha: match[1]!, newSha: match[2]!, ref: match[3]! });
  }
  return updates;
}

/** Branches and tags make push events; other refs (notes, merge request heads, …) do not. */
export function describeRef(ref: string): { refType: RefType; name: string } | null {
  if (ref.startsWith("refs/heads/")) return { refType: "branch", name: ref.slice("refs/heads/".length) };
  if (ref.startsWith("refs/tags/")) return { refType: "tag", name: ref.slice("refs/tags/".length) };
  return null;
}

export function pushActionOf(update: RefUpdate): PushAction {
  if (isZeroSha(update.oldSha)) return "created";
  if (isZeroSha(update.newSha)) return "removed";
  return "pushed";
}

/** A commit title as GitLab shows it: the first line of the message. */
export function commitTitleOf(message: string): string | null {
  const first = message.split("\n").find((line) => line.trim() !== "");
  return first === undefined ? null : first.trim();
}

/**
 * GitLab's `push_event_activities_limit` (an application setting, 3 by default): a push that changes more branches
 * (or tags) the same way than this records one bulk event for them instead of one each.
 */
export const pushEventActivitiesLimit = 3;

/** The events a push records: one per ref update, or one bulk event for a group of like updates. */
export type PushEventPlan = { kind: "single"; update: RefUpdate } | { kind: "bulk"; pushData: PushData };

/**
 * GitLab's grouping (`Git::ProcessRefChangesService`): branches first, then tags; within each, the updates grouped by
 * action (created, removed, pushed) in the order they first appear. A group larger than the limit becomes one bulk
 * event (`BulkPushEventPayloadService`: no commits or ref named, only `ref_count`); the others an event per ref.
 */
export function planPushEvents(updates: RefUpdate[], limit: number = pushEventActivitiesLimit): PushEventPlan[] {
  const plans: PushEventPlan[] = [];
  for (const refType of ["branch", "tag"] as const) {
    const groups = new Map<PushAction, RefUpdate[]>();
    for (const update of updates) {
      if (describeRef(update.ref)?.refType !== refType) continue;
      const action = pushActionOf(update);
      groups.set(action, [...(groups.get(action) ?? []), update]);
    }
    for (const [action, group] of groups) {
      if (group.length > limit) {
        plans.push({
          kind: "bulk",
          pushData: {
            commit_count: 0,
            action,
            ref_type: refType,
            commit_from: null,
            commit_to: null,
            ref: null,
            commit_title: null,
            ref_count: group.length,
          },
        });
      } else {
        plans.push(...group.map((update) => ({ kind: "single" as const, update })));
      }
    }
  }
  return plans;
}
