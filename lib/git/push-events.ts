import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "@/lib/db";
import { projects } from "@/lib/db/schema";
import { recordEvent } from "@/lib/events/record";
import { enqueuePushHooks, pushHookDeliveries } from "./push-hooks";
import { git } from "./repositories";
import { commitTitleOf, describeRef, isZeroSha, planPushEvents, pushActionOf, type PushData, type RefUpdate } from "./ref-updates";

/**
 * How many commits a ref update brought: for an existing ref the commits between old and new; for a new ref the
 * commits that no ref reached before the push (so a branch made from main counts only its own commits).
 */
async function countNewCommits(repository: string, update: RefUpdate, refsBefore: Map<string, string>): Promise<number> {
  if (isZeroSha(update.newSha)) return 0;
  const excluded = isZeroSha(update.oldSha)
    ? [...new Set([...refsBefore].filter(([ref]) => ref !== update.ref).map(([, sha]) => sha))]
    : [update.oldSha];
  const input = [update.newSha, ...excluded.map((sha) => `^${sha}`)].join("\n") + "\n";
  const output = await git(["rev-list", "--count", "--stdin"], { cwd: repository, input });
  return Number(output.trim()) || 0;
}

async function commitTitle(repository: string, sha: string): Promise<string | null> {
  try {
    const message = await git(["log", "-1", "--format=%B", `${sha}^{commit}`, "--"], { cwd: repository });
    return commitTitleOf(message);
  } catch {
    // A tag may point at something that is not a commit.
    return null;
  }
}

/** GitLab's `push_data` for one ref update, read from the repository after the push. */
export async function pushDataFor(repository: string, update: RefUpdate, refsBefore: Map<string, string>): Promise<PushData | null> {
  const described = describeRef(update.ref);
  if (!described) return null;
  const action = pushActionOf(update);
  return {
    commit_count: await countNewCommits(repository, update, refsBefore),
    action,
    ref_type: described.refType,
    commit_from: action === "created" ? null : update.oldSha,
    commit_to: action === "removed" ? null : update.newSha,
    ref: described.name,
    commit_title: action === "removed" ? null : await commitTitle(repository, update.newSha),
    ref_count: null,
  };
}

/**
 * The first branch pushed to an empty repository becomes its default branch (HEAD), as in GitLab; a HEAD that
 * still names an existing branch is left alone. The project records the branch HEAD names as its default branch
 * once it exists, unless one was chosen meanwhile (`PUT /projects/:id` moves both).
 */
export async function adoptDefaultBranch(db: Database, push: { projectId: number; repository: string; updates: RefUpdate[] }): Promise<void> {
  const { repository } = push;
  const headBranch = async () => {
    const head = (await git(["symbolic-ref", "--quiet", "HEAD"], { cwd: repository }).catch(() => "")).trim();
    if (!head.startsWith("refs/heads/")) return null;
    const current = await git(["rev-parse", "--verify", "--quiet", head], { cwd: repository }).catch(() => "");
    return current.trim() ? head.slice("refs/heads/".length) : null;
  };
  let branch = await headBranch();
  if (!branch) {
    const created = push.updates.find((update) => update.ref.startsWith("refs/heads/") && !isZeroSha(update.newSha));
    if (!created) return;
    await git(["symbolic-ref", "HEAD", created.ref], { cwd: repository });
    branch = created.ref.slice("refs/heads/".length);
  }
  await db
    .update(projects)
    .set({ defaultBranch: branch })
    .where(and(eq(projects.id, push.projectId), isNull(projects.defaultBranch)));
}

/**
 * Records a push's events, all in one transaction, authored by the pusher: one `pushed` event per branch or tag it
 * updated, or, for more like changes than GitLab's limit, one bulk event for them (`planPushEvents`). The push and tag
 * push hooks' deliveries are written in the same transaction, their payloads read from the repository before it.
 */
export async function recordPushEvents(
  db: Database,
  push: { projectId: number; authorId: number; repository: string; updates: RefUpdate[]; refsBefore: Map<string, string>; now: Date },
): Promise<PushData[]> {
  const payloads: PushData[] = [];
  for (const plan of planPushEvents(push.updates)) {
    const data = plan.kind === "bulk" ? plan.pushData : await pushDataFor(push.repository, plan.update, push.refsBefore);
    if (data) payloads.push(data);
  }
  if (payloads.length === 0) return payloads;
  const hookDeliveries = await pushHookDeliveries(db, push);
  await db.transaction(async (tx) => {
    for (const pushData of payloads) {
      await recordEvent(tx, {
        projectId: push.projectId,
        authorId: push.authorId,
        action: "pushed",
        data: { push_data: pushData },
        createdAt: push.now,
      });
    }
    await enqueuePushHooks(tx, hookDeliveries, push.now);
  });
  return payloads;
}
