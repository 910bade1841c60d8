import "server-only";
import { and, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { raisedSessionVersion } from "@/lib/auth/sessions";
import { createContext, type Ctx } from "@/lib/context";
import { statementRows, type Database, type Executor } from "@/lib/db";
import type { DatabaseHandle } from "@/lib/db/drivers";
import {
  alertAssignees,
  alertNotes,
  events,
  issueAssignees,
  issues,
  namespaces,
  notes,
  oauthGrants,
  projectMembers,
  projects,
  users,
  type UserRow,
} from "@/lib/db/schema";
import { logger } from "@/lib/log";
import { completeMessage, enqueueMessages, rescheduleMessage, type LeasedMessage } from "@/lib/outbox/outbox";
import type { OutboxHandler } from "@/lib/outbox/worker";
import { deleteProject } from "@/lib/projects/settings";
import { forgetTokenChecks } from "@/lib/token-checks/checks";
import { removedMemberHooks } from "@/lib/webhooks/events";
import { getGhostUser } from "./ghost";
import { getUser, requireAdmin } from "./users";

/** The outbox topic of user deletions (GitLab's `DeleteUserWorker`). */
export const userDeletionTopic = "user_deletion";

/** What a scheduled deletion carries. */
export interface UserDeletion {
  userId: number;
  /** The administrator who asked, for the record. */
  deletedById: number | null;
  /** Delete what the user wrote too, instead of handing it to the ghost user. */
  hardDelete: boolean;
}

/**
 * `DELETE /users/:id` (admins): answered at once, the deletion itself done in the background, as GitLab's
 * `delete_async`. The account is blocked in the request, so its tokens, OAuth grants and browser sessions stop working
 * before the answer; the deletion is written to the outbox in the same transaction, so it happens exactly when the
 * block does, after a restart too. GitLab's internal users (the ghost user, the alert bot) are answered the same and
 * never deleted, as GitLab's worker refuses them. Administrators may delete any account, their own included, as on
 * GitLab.
 */
export async function scheduleUserDeletion(ctx: Ctx, userId: number, options: { hardDelete: boolean }): Promise<void> {
  requireAdmin(ctx);
  const user = await getUser(ctx, userId);
  if (user.userType !== "human") {
    logger.warn({ userId: user.id }, "an internal user is never deleted");
    return;
  }
  const deletion: UserDeletion = {
    userId: user.id,
    deletedById: ctx.actor.kind === "user" ? ctx.actor.user.id : null,
    hardDelete: options.hardDelete,
  };
  await ctx.db.transaction(async (tx) => {
    await blockForDeletion(tx, user.id);
    await enqueueMessages(tx, [{ topic: userDeletionTopic, orderingKey: `${userDeletionTopic}:${user.id}`, payload: { ...deletion } }]);
  });
  forgetTokenChecks(ctx.db, `user:${user.id}`);
}

/** Blocked accounts cannot sign in or use tokens, and blocking ends every session they have. */
async function blockForDeletion(tx: Executor, userId: number): Promise<void> {
  await tx
    .update(users)
    .set({ state: "blocked", ...raisedSessionVersion })
    .where(and(eq(users.id, userId), ne(users.state, "blocked")));
}

const batchSize = 200;

/**
 * One kind of what a user leaves behind, removed (or handed to the ghost user) a batch at a time, found through an
 * index on the column that names the user: each call changes at most a batch and answers how many rows it changed.
 */
type Cleanup = (tx: Executor, userId: number, heir: Heir) => Promise<number>;

/** Who gets what the user wrote: the ghost user (its id), or nobody with `hard_delete` (it is deleted). */
type Heir = { ghostId: number } | "nobody";

/**
 * `change` (`delete from t` or `update t set …`) applied to a batch of `column`'s table's rows that name the user, by
 * their row addresses (a TID scan), so tables without an id column are batched the same way. Raw SQL on purpose: the
 * rows' `updated_at` stays as it was, as GitLab's `update_all` leaves it.
 */
function inBatches(column: PgColumn, change: (table: SQL) => SQL): Cleanup {
  return async (tx, userId) => {
    const table = sql`${column.table}`;
    const named = sql`${sql.identifier(column.name)} = ${userId}`;
    const statement = sql`${change(table)} where ${named}
      and ctid = any(array(select ctid from ${table} where ${named} limit ${batchSize})) returning 1`;
    return statementRows(await tx.execute(statement)).length;
  };
}

function deleting(column: PgColumn): Cleanup {
  return inBatches(column, (table) => sql`delete from ${table}`);
}

function clearing(column: PgColumn): Cleanup {
  return inBatches(column, (table) => sql`update ${table} set ${sql.identifier(column.name)} = null`);
}

/** What the user wrote: handed to the ghost user, or with `hard_delete` deleted (and what hangs on it, by cascades). */
function written(authorColumn: PgColumn): Cleanup {
  const removing = deleting(authorColumn);
  return (tx, userId, heir) => {
    if (heir === "nobody") return removing(tx, userId, heir);
    return inBatches(authorColumn, (table) => sql`update ${table} set ${sql.identifier(authorColumn.name)} = ${heir.ghostId}`)(tx, userId, heir);
  };
}

/** A batch of the user's memberships, each project's member hooks told, as when someone leaves. */
async function removeMemberships(tx: Executor, user: UserRow): Promise<number> {
  const removed = await tx
    .delete(projectMembers)
    .where(
      and(
        eq(projectMembers.userId, user.id),
        inArray(projectMembers.projectId, sql`(select ${projectMembers.projectId} from ${projectMembers} where ${projectMembers.userId} = ${user.id} limit ${batchSize})`),
      ),
    )
    .returning();
  for (const member of removed) await removedMemberHooks(tx, { projectId: member.projectId, member, now: new Date() });
  return removed.length;
}

/**
 * What a deletion goes through once the user's memberships and personal projects are gone, in GitLab's order
 * (`MigrateRecordsToGhostUserService`): what they wrote, then the rows that only point at them. Their events go, as
 * GitLab's foreign key deletes them with the user. The user's row goes last, taking with it what is theirs alone
 * (tokens, OAuth applications, their namespace) and what is left of them in small tables.
 */
const cleanups: Cleanup[] = [
  written(issues.authorId),
  written(notes.authorId),
  deleting(events.authorId),
  deleting(issueAssignees.userId),
  deleting(alertAssignees.userId),
  clearing(issues.closedById),
  clearing(projects.creatorId),
  clearing(projectMembers.createdById),
  clearing(alertNotes.authorId),
  // Each grant takes its tokens with it.
  deleting(oauthGrants.userId),
];

/** A project in the user's own namespace, if one is left. */
async function personalProjectId(db: Executor, userId: number): Promise<number | null> {
  const [row] = await db
    .select({ id: projects.id })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(eq(namespaces.ownerId, userId))
    .limit(1);
  return row?.id ?? null;
}

/**
 * One bounded step of a deletion: a batch of one cleanup, or one personal project (deleted as `DELETE /projects/:id`
 * deletes it, repository and all), or, once nothing is left, the user's row, in the transaction `finish` is given
 * (which completes the outbox message). Answers whether the user is gone.
 */
export async function deleteUserStep(db: Database, deletion: UserDeletion, finish: (tx: Executor) => Promise<void>): Promise<boolean> {
  const [user] = await db.select().from(users).where(eq(users.id, deletion.userId));
  if (!user || user.userType !== "human") {
    await db.transaction(finish);
    return true;
  }
  // Unblocked while the deletion waited: the deletion still goes on, so the account stays unusable until it is gone.
  if (user.state !== "blocked") {
    await blockForDeletion(db, user.id);
    forgetTokenChecks(db, `user:${user.id}`);
  }
  // GitLab's `Users::DestroyService` order: memberships, then personal projects, then the rest.
  if ((await db.transaction((tx) => removeMemberships(tx, user))) > 0) return false;
  const projectId = await personalProjectId(db, user.id);
  if (projectId !== null) {
    const system: Ctx = createContext(db, { kind: "system", job: "user deletion" });
    await deleteProject(system, String(projectId));
    return false;
  }
  const heir: Heir = deletion.hardDelete ? "nobody" : { ghostId: (await getGhostUser(db)).id };
  for (const cleanup of cleanups) {
    const changed = await db.transaction((tx) => cleanup(tx, user.id, heir));
    if (changed > 0) return false;
  }
  await db.transaction(async (tx) => {
    await tx.delete(users).where(eq(users.id, user.id));
    await finish(tx);
  });
  forgetTokenChecks(db, `user:${user.id}`);
  logger.info({ userId: user.id, deletedById: deletion.deletedById, hardDelete: deletion.hardDelete }, "user deleted");
  return true;
}

/** How long one lease works on a deletion before handing the message back for the next round. */
const leaseWorkMs = 5_000;

function deletionOf(payload: Record<string, unknown>): UserDeletion | null {
  const { userId, deletedById, hardDelete } = payload;
  if (typeof userId !== "number" || typeof hardDelete !== "boolean") return null;
  return { userId, deletedById: typeof deletedById === "number" ? deletedById : null, hardDelete };
}

/**
 * The outbox handler of user deletions: steps until the user is gone or its time is up, then hands the message back
 * due at once, so a deletion of any size is done in rounds no longer than `leaseWorkMs`, each well within its lease.
 */
export function userDeletionHandler(): OutboxHandler {
  return async (handle: DatabaseHandle, message: LeasedMessage) => {
    const deletion = deletionOf(message.payload);
    if (!deletion) {
      logger.error({ outboxMessageId: message.id }, "a user deletion message is malformed; dropped");
      await completeMessage(handle.db, message);
      return;
    }
    const stopAt = Date.now() + leaseWorkMs;
    for (;;) {
      if (await deleteUserStep(handle.db, deletion, (tx) => completeMessage(tx, message).then(() => undefined))) return;
      if (Date.now() >= stopAt) {
        await rescheduleMessage(handle.db, message, { availableAt: new Date(), error: null, countAttempt: false });
        return;
      }
    }
  };
}
