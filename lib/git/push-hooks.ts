import "server-only";
import { eq } from "drizzle-orm";
import type { Database, Executor } from "@/lib/db";
import { namespaces, projects, users } from "@/lib/db/schema";
import { enqueueChatNotifications } from "@/lib/integrations/enqueue";
import type { ProjectView } from "@/lib/projects/projects";
import { enqueueHookDeliveries } from "@/lib/webhooks/enqueue";
import { listenersOf, type Listeners } from "@/lib/webhooks/events";
import { maxPushPayloadCommits, pushHookData, type PushedCommit } from "@/lib/webhooks/payloads";
import { git } from "./repositories";
import { commitTitleOf, describeRef, isZeroSha, pushActionOf, type PushAction, type RefType, type RefUpdate } from "./ref-updates";

/**
 * GitLab's `push_event_hooks_limit` (3 by default): of a push's ref updates, grouped by kind (branch, tag) and action
 * (created, removed, pushed), a group larger than this sends no push or tag push hooks at all.
 */
export const pushEventHooksLimit = 3;

/** The updates of a push that hooks are sent for (`Git::ProcessRefChangesService#execute_project_hooks?`). */
export function updatesForHooks(updates: RefUpdate[], limit = pushEventHooksLimit): RefUpdate[] {
  const groups = new Map<`${RefType}:${PushAction}`, RefUpdate[]>();
  for (const update of updates) {
    const described = describeRef(update.ref);
    if (!described) continue;
    const key = `${described.refType}:${pushActionOf(update)}` as const;
    groups.set(key, [...(groups.get(key) ?? []), update]);
  }
  return [...groups.values()].filter((group) => group.length <= limit).flat();
}

const fieldSeparator = "\u0000";
const recordSeparator = "\u0001\n";

/** Commits with what each changed against its first parent (or, for a root commit, everything it holds). */
async function commitDetails(repository: string, shas: string[]): Promise<PushedCommit[]> {
  if (shas.length === 0) return [];
  const output = await git(["log", "--no-walk=unsorted", "--stdin", `--format=%H%x00%P%x00%an%x00%ae%x00%cI%x00%B%x01`], {
    cwd: repository,
    input: shas.join("\n") + "\n",
  });
  const commits: PushedCommit[] = [];
  for (const record of output.split(recordSeparator)) {
    const [id, parents, name, email, timestamp, ...messageParts] = record.replace(/^\n/, "").split(fieldSeparator);
    if (!id || timestamp === undefined) continue;
    const message = messageParts.join(fieldSeparator).replace(/\u0001$/, "");
    const firstParent = parents?.split(" ").find(Boolean);
    const diff = await git(
      firstParent ? ["diff-tree", "-r", "-z", "--no-renames", "--name-status", firstParent, id] : ["diff-tree", "-r", "-z", "--no-renames", "--name-status", "--root", "--no-commit-id", id],
      { cwd: repository },
    );
    const added: string[] = [];
    const modified: string[] = [];
    const removed: string[] = [];
    const parts = diff.split("\u0000").filter((part) => part !== "");
    for (let index = 0; index + 1 < parts.length; index += 2) {
      const status = parts[index]!;
      const file = parts[index + 1]!;
      if (status === "A") added.push(file);
      else if (status === "D") removed.push(file);
      else modified.push(file);
    }
    commits.push({ id, message, title: commitTitleOf(message) ?? "", timestamp, author: { name: name ?? "", email: email ?? "" }, added, modified, removed });
  }
  return commits;
}

/** The commits a branch update brought (as the push event counts them): the newest 20, oldest first, and how many. */
async function branchCommits(repository: string, update: RefUpdate, refsBefore: Map<string, string>): Promise<{ commits: PushedCommit[]; total: number }> {
  if (isZeroSha(update.newSha)) return { commits: [], total: 0 };
  const excluded = isZeroSha(update.oldSha)
    ? [...new Set([...refsBefore].filter(([ref]) => ref !== update.ref).map(([, sha]) => sha))]
    : [update.oldSha];
  const input = [update.newSha, ...excluded.map((sha) => `^${sha}`)].join("\n") + "\n";
  const total = Number((await git(["rev-list", "--count", "--stdin"], { cwd: repository, input })).trim()) || 0;
  const newest = (await git(["rev-list", `--max-count=${maxPushPayloadCommits}`, "--stdin"], { cwd: repository, input })).split("\n").filter(Boolean);
  return { commits: await commitDetails(repository, newest.reverse()), total };
}

/** A tag's commit and, for an annotated tag, its message. */
async function tagTarget(repository: string, update: RefUpdate): Promise<{ commit: string | null; message: string | null }> {
  if (isZeroSha(update.newSha)) return { commit: null, message: null };
  const commit = (await git(["rev-parse", "--verify", "--quiet", `${update.newSha}^{commit}`], { cwd: repository }).catch(() => "")).trim() || null;
  const type = (await git(["cat-file", "-t", update.newSha], { cwd: repository })).trim();
  const message = type === "tag" ? (await git(["cat-file", "tag", update.newSha], { cwd: repository })).split("\n\n").slice(1).join("\n\n") : null;
  return { commit, message };
}

export interface PushHookDelivery {
  trigger: "push_hooks" | "tag_push_hooks";
  branch?: string;
  data: ReturnType<typeof pushHookData>;
}

/** A push's hook payloads, with the project they were built for and who takes them. */
export interface PushHookDeliveries {
  view: Pick<ProjectView, "project" | "namespace">;
  listeners: Listeners;
  deliveries: PushHookDelivery[];
}

/**
 * The push and tag push hook payloads of a push (`Gitlab::DataBuilder::Push`), read from the repository after the
 * push and before its events are written; none when the project has no hook or chat integration that takes them.
 */
export async function pushHookDeliveries(
  db: Database,
  push: { projectId: number; authorId: number; repository: string; updates: RefUpdate[]; refsBefore: Map<string, string>; now: Date },
): Promise<PushHookDeliveries | null> {
  const updates = updatesForHooks(push.updates);
  if (updates.length === 0) return null;
  const listeners = await listenersOf(db, push.projectId, { hooks: ["push_hooks", "tag_push_hooks"], integrations: ["push", "tag_push"] }, push.now);
  if (!listeners.hooks && !listeners.integrations) return null;
  const [row] = await db
    .select({ project: projects, namespace: namespaces })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(eq(projects.id, push.projectId));
  const [user] = await db.select({ id: users.id, name: users.name, username: users.username }).from(users).where(eq(users.id, push.authorId));
  if (!row || !user) return null;
  const view: Pick<ProjectView, "project" | "namespace"> = row;
  const deliveries: PushHookDelivery[] = [];
  for (const update of updates) {
    const described = describeRef(update.ref)!;
    if (described.refType === "branch") {
      const { commits, total } = await branchCommits(push.repository, update, push.refsBefore);
      const data = pushHookData(view, user, {
        ref: update.ref,
        before: update.oldSha,
        after: update.newSha,
        checkoutSha: isZeroSha(update.newSha) ? null : update.newSha,
        message: null,
        commits,
        totalCommitsCount: total,
      });
      deliveries.push({ trigger: "push_hooks", branch: described.name, data });
    } else {
      const target = await tagTarget(push.repository, update);
      const commits = target.commit ? await commitDetails(push.repository, [target.commit]) : [];
      const data = pushHookData(view, user, {
        ref: update.ref,
        before: update.oldSha,
        after: update.newSha,
        checkoutSha: target.commit,
        message: target.message,
        commits,
        totalCommitsCount: commits.length,
      });
      deliveries.push({ trigger: "tag_push_hooks", data });
    }
  }
  return { view, listeners, deliveries };
}

/** Writes a push's hook deliveries and chat messages in the transaction that records its events. */
export async function enqueuePushHooks(tx: Executor, pushed: PushHookDeliveries | null, now: Date): Promise<void> {
  if (!pushed) return;
  const projectId = pushed.view.project.id;
  for (const delivery of pushed.deliveries) {
    if (pushed.listeners.hooks) await enqueueHookDeliveries(tx, { projectId, trigger: delivery.trigger, data: delivery.data, branch: delivery.branch, now });
    if (pushed.listeners.integrations) {
      const event = delivery.trigger === "push_hooks" ? "push" : "tag_push";
      await enqueueChatNotifications(tx, { view: pushed.view, notification: { event, data: delivery.data }, now });
    }
  }
}
