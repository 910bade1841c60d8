import "server-only";
import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import type { Database, Executor } from "@/lib/db";
import { statementRows } from "@/lib/db/statement-rows";
import { outboxBodies, outboxMessages } from "@/lib/db/schema";

/**
 * The outbox: messages to send outside (webhook deliveries, and any later sender's), written with the change that
 * causes them and sent afterwards by a worker in each server process (`OutboxWorker`).
 *
 * - `enqueue…` inside the change's transaction: the message exists exactly when the change does, and the request pays
 *   for one insert, never for the sending.
 * - `leaseMessages` hands a worker the oldest waiting message of each ordering key (nothing newer of a key is handed out
 *   while an older one waits), each for a limited time. Rows are claimed with `FOR UPDATE SKIP LOCKED` and marked with
 *   a lease, so two workers (in any processes) never hold the same message at once; a worker that dies leaves a lease
 *   that runs out, and the message is handed out again.
 * - `completeMessage` deletes it, `rescheduleMessage` puts it back for later; both only for the lease's holder.
 */

/** The channel a committed enqueue notifies, so idle workers start at once instead of at their next poll. */
export const outboxChannel = "outbox";

export interface NewOutboxMessage {
  topic: string;
  orderingKey: string;
  payload: Record<string, unknown>;
  /** When it is due; at once (the database's now) without. */
  availableAt?: Date;
}

export interface LeasedMessage {
  id: number;
  topic: string;
  orderingKey: string;
  payload: Record<string, unknown>;
  /** The text shared with the other messages of its change (`enqueueSelected`'s `body`), or null. */
  body: string | null;
  /** Attempts begun, this one included. */
  attempts: number;
  leaseToken: string;
  leasedUntil: Date;
}

/**
 * The wait before attempt `attempts + 1` of a sender that retries with a growing delay: `firstMs`, then four times as
 * long each time (15 s, 1, 4, 16 minutes for webhooks).
 */
export function growingRetryDelayMs(attempts: number, firstMs: number): number {
  return firstMs * 4 ** Math.max(0, attempts - 1);
}

/** A point in time as a statement parameter. */
export function instantParam(time: Date): SQL {
  return sql`${time.toISOString()}::timestamptz`;
}

/**
 * Inserts what `insert` (an `INSERT … RETURNING id`) writes and notifies the workers when it wrote anything, in one
 * statement: the request that causes a delivery pays one round trip for it. The notification is delivered when the
 * transaction commits, and not at all if it rolls back.
 */
async function insertAndNotify(tx: Executor, insert: SQL, shared?: SQL): Promise<number> {
  const [row] = statementRows<{ inserted: number }>(await tx.execute(sql`
    with ${shared ? sql`${shared}, ` : sql``}inserted as (${insert}),
    notified as (select pg_notify(${outboxChannel}, '') from (select 1 from inserted limit 1) one)
    select (select count(*) from inserted)::int as inserted, (select count(*) from notified)::int as notified`));
  return row?.inserted ?? 0;
}

/** Writes messages in the caller's transaction: one statement, whatever their number. */
export async function enqueueMessages(tx: Executor, messages: NewOutboxMessage[]): Promise<number> {
  if (messages.length === 0) return 0;
  const rows = sql.join(
    messages.map(
      (message) =>
        sql`(${message.topic}, ${message.orderingKey}, ${JSON.stringify(message.payload)}::jsonb, ${message.availableAt ? instantParam(message.availableAt) : sql`now()`})`,
    ),
    sql`, `,
  );
  return insertAndNotify(tx, sql`insert into ${outboxMessages} (topic, ordering_key, payload, available_at) values ${rows} returning id`);
}

/**
 * Writes the messages a query selects, in the caller's transaction: one `INSERT … SELECT` for a fan-out to any number
 * of recipients. `select` must answer the columns `topic`, `ordering_key` and `payload` (jsonb), in that order. A
 * `body` they all carry is written once (`outbox_bodies`), and only when the query selects anything; each message
 * is leased with it (`LeasedMessage.body`).
 */
export async function enqueueSelected(tx: Executor, select: SQL, body?: string): Promise<number> {
  if (body === undefined) return insertAndNotify(tx, sql`insert into ${outboxMessages} (topic, ordering_key, payload) ${select} returning id`);
  return insertAndNotify(
    tx,
    sql`insert into ${outboxMessages} (topic, ordering_key, payload, body_id)
        select selected.*, shared.id from (${select}) selected cross join shared returning id`,
    sql`selected_any as (select exists (${select}) as found),
        shared as (insert into ${outboxBodies} (body) select ${body}::text from selected_any where selected_any.found returning id)`,
  );
}

/**
 * Writes the messages a query selects with the bodies they name, in the caller's transaction: a sender that fans one
 * message out to many recipients (`select` answers `topic`, `ordering_key`, `payload` and `body_id`, in that order)
 * hands its body on to them instead of writing it again. Complete the fanned-out message after this, in the same
 * transaction, so its body is kept for the new messages.
 */
export async function enqueueSelectedWithBodies(tx: Executor, select: SQL): Promise<number> {
  return insertAndNotify(tx, sql`insert into ${outboxMessages} (topic, ordering_key, payload, body_id) ${select} returning id`);
}

interface LeasedRow {
  id: string | number;
  topic: string;
  ordering_key: string;
  payload: Record<string, unknown>;
  body: string | null;
  attempts: number;
  lease_token: string;
  leased_until: string | Date;
}

/**
 * How many due messages a lease looks at, oldest first, for the heads of their keys. Past that, the due messages are
 * mostly queued behind heads that are leased or waiting for a retry (a slow or failing receiver's backlog), and the
 * lease finds the other keys' heads by walking the keys instead (`keyHeads`), so its cost follows the number of keys
 * with messages, never the length of any key's queue.
 */
export const leaseScanWindow = 256;

/** Of `messages` (an alias), those that are due at `at` and not held by anyone. */
function dueAndFree(alias: SQL, at: SQL): SQL {
  return sql`${alias}.available_at <= ${at} and (${alias}.leased_until is null or ${alias}.leased_until < ${at})`;
}

/** Whether `alias` is the oldest message of its key. */
function isKeyHead(alias: SQL): SQL {
  return sql`not exists (select 1 from outbox_messages e where e.ordering_key = ${alias}.ordering_key and e.id < ${alias}.id)`;
}

/**
 * The head (oldest message) of every ordering key that is due and free, found with one probe of
 * `outbox_messages_ordering_idx` per key (a loose index scan: the first entry past the previous key is the next key's
 * head), whatever the number of messages behind each.
 */
function keyHeads(topicList: SQL, at: SQL): SQL {
  // Each step reads the head's row itself (one heap fetch per key), so whether it is due is decided on the walk, not by
  // joining the walk back to the table, which the planner would do with a scan of the whole table.
  return sql`
    with recursive walked(ordering_key, id, topic, available_at, leased_until) as (
      (select ordering_key, id, topic, available_at, leased_until from outbox_messages order by ordering_key, id limit 1)
      union all
      select next.* from walked cross join lateral (
        select m.ordering_key, m.id, m.topic, m.available_at, m.leased_until from outbox_messages m
         where m.ordering_key > walked.ordering_key order by m.ordering_key, m.id limit 1) next
    )
    select head.id from walked head where head.topic in (${topicList}) and ${dueAndFree(sql`head`, at)}`;
}

/**
 * Messages handed out in runs: a sender that takes many messages of one ordering key at once (a webhook's deliveries,
 * sent one after another over one connection, their results written in one statement) gets, with a key's head, up to
 * `length - 1` messages queued right behind it, as long as each is due and free. They are leased as the head is, and
 * since none of them is its key's head until the ones before it are completed, no other worker can take them meanwhile.
 */
export interface LeaseRuns {
  topics: readonly string[];
  length: number;
}

/** The messages right behind each picked head of a run topic (see `LeaseRuns`), up to the first that is not due and free. */
function runFollowers(runs: LeaseRuns, at: SQL): SQL {
  const runTopicList = sql.join(
    runs.topics.map((topic) => sql`${topic}`),
    sql`, `,
  );
  // The key's next messages by `outbox_messages_ordering_idx`, a bounded probe per head; the running `bool_and` ends
  // the run at the first one that is not due and free, so a run never skips a message of its key.
  return sql`
    select followers.id from picked cross join lateral (
      select next_ones.id from (
        select behind.id, bool_and(behind.free) over (order by behind.id) as run_goes_on from (
          select f.id, ${dueAndFree(sql`f`, at)} as free from outbox_messages f
           where f.ordering_key = picked.ordering_key and f.id > picked.id
           order by f.id limit ${runs.length - 1}
        ) behind
      ) next_ones where next_ones.run_goes_on
    ) followers
    where picked.topic in (${runTopicList})`;
}

/**
 * Leases up to `limit` messages of `topics` that are due: for each ordering key, only its oldest message, and only if
 * no other worker holds it. Each lease lasts `leaseMs`; its attempt is counted now, so a message whose worker died
 * mid-send shows the attempt. Times are the database's unless `now` is given: a message written a moment ago is due
 * by the clock that wrote it, whatever this process's clock says.
 *
 * Two statements: the first finds candidate heads among the oldest due messages (`leaseScanWindow`), or by walking
 * the keys when those are crowded with messages queued behind their heads; the second takes the candidates with
 * `FOR UPDATE SKIP LOCKED`, checking again that each is due, free and its key's head.
 *
 * With `runs`, a head of one of its topics comes with the messages queued right behind it on its key (`LeaseRuns`),
 * under the same lease; `limit` still counts heads.
 */
export async function leaseMessages(
  db: Database,
  {
    topics,
    limit,
    leaseMs,
    now,
    scanWindow = leaseScanWindow,
    runs,
  }: { topics: readonly string[]; limit: number; leaseMs: number; now?: Date; scanWindow?: number; runs?: LeaseRuns },
): Promise<LeasedMessage[]> {
  if (topics.length === 0 || limit <= 0) return [];
  const at = now ? instantParam(now) : sql`now()`;
  const topicList = sql.join(
    topics.map((topic) => sql`${topic}`),
    sql`, `,
  );
  const candidates = statementRows<{ id: string | number }>(await db.execute(sql`
    with scanned as (
      select h.id, h.ordering_key, h.available_at from outbox_messages h
       where ${dueAndFree(sql`h`, at)} and h.topic in (${topicList})
       order by h.available_at, h.id
       limit ${scanWindow}
    ),
    heads as (select s.id from scanned s where ${isKeyHead(sql`s`)})
    select id from heads
    union
    select id from (${keyHeads(topicList, at)}) walked_heads
     where (select count(*) from scanned) >= ${scanWindow} and (select count(*) from heads) < ${limit}`)).map((row) => Number(row.id));
  if (candidates.length === 0) return [];

  const token = randomUUID();
  const leasedUntil = sql`${at} + ${leaseMs} * interval '1 millisecond'`;
  const candidateList = sql.join(
    candidates.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = statementRows<LeasedRow>(await db.execute(sql`
    with picked as (
      select h.id, h.ordering_key, h.topic
        from outbox_messages h
       where h.id in (${candidateList}) and ${dueAndFree(sql`h`, at)} and ${isKeyHead(sql`h`)}
       order by h.available_at, h.id
       limit ${limit}
       for update of h skip locked
    ),
    leased as (
      select id from picked
      ${runs && runs.length > 1 ? sql`union all ${runFollowers(runs, at)}` : sql``}
    )
    update outbox_messages m
       set leased_until = ${leasedUntil}, lease_token = ${token}, attempts = m.attempts + 1
      from leased
     where m.id = leased.id
       and (m.leased_until is null or m.leased_until < ${at})
    returning m.id, m.topic, m.ordering_key, m.payload, (select b.body from outbox_bodies b where b.id = m.body_id) as body,
              m.attempts, m.lease_token, m.leased_until`));
  return rows
    .map((row) => ({
      id: Number(row.id),
      topic: row.topic,
      orderingKey: row.ordering_key,
      payload: row.payload,
      body: row.body,
      attempts: row.attempts,
      leaseToken: row.lease_token,
      leasedUntil: new Date(row.leased_until),
    }))
    .sort((a, b) => a.id - b.id);
}

type LeaseHeld = Pick<LeasedMessage, "id" | "leaseToken">;

/** `where` of the messages among `messages` whose lease is still the caller's (`alias`, an alias of `outbox_messages`, or none). */
export function stillHeld(messages: readonly LeaseHeld[], alias?: string): SQL {
  const column = (name: string) => sql.raw(alias ? `${alias}.${name}` : name);
  return sql.join(
    messages.map((message) => sql`(${column("id")} = ${message.id} and ${column("lease_token")} = ${message.leaseToken})`),
    sql` or `,
  );
}

/**
 * Deleting sent (or abandoned) messages, those whose lease is still the caller's, and their bodies that no other
 * message needs, as common table expressions (`completed_message`, answering each deleted message's `body_id`), for
 * a sender that records its attempts in the same statement.
 */
export function completionCtes(messages: readonly LeaseHeld[]): SQL {
  // The statement sees the table as it was before its own deletions, hence "other than those it deletes".
  return sql`completed_message as (delete from outbox_messages where ${stillHeld(messages)} returning id, body_id),
    unneeded_body as (
      delete from outbox_bodies b using (select distinct body_id from completed_message) completed
       where b.id = completed.body_id
         and not exists (select 1 from outbox_messages m
                          where m.body_id = completed.body_id and m.id not in (select id from completed_message)))`;
}

/** Deletes sent (or abandoned) messages (`completionCtes`). Answers how many leases were still the caller's. */
export async function completeMessages(tx: Executor, messages: readonly LeaseHeld[]): Promise<number> {
  if (messages.length === 0) return 0;
  const [row] = statementRows<{ deleted: number }>(
    await tx.execute(sql`with ${completionCtes(messages)} select (select count(*) from completed_message)::int as deleted`),
  );
  return row?.deleted ?? 0;
}

/** Deletes a sent (or abandoned) message (`completionCtes`). Answers whether the lease was the caller's. */
export async function completeMessage(tx: Executor, message: LeaseHeld): Promise<boolean> {
  return (await completeMessages(tx, [message])) > 0;
}

/**
 * Hands back messages of a run that were not tried (the run stopped at an earlier one that failed, or the sender will
 * not try them now), as they were before the lease: due again, their attempt not counted. They wait behind whatever
 * is before them on their key.
 */
export async function releaseMessages(tx: Executor, messages: readonly LeaseHeld[]): Promise<void> {
  if (messages.length === 0) return;
  await tx.execute(sql`
    update outbox_messages set leased_until = null, lease_token = null, attempts = attempts - 1 where ${stillHeld(messages)}`);
}

/**
 * Puts a message back to be leased again at `availableAt`, with why (the last error), if the lease is still the
 * caller's. Messages behind it on its ordering key wait for it.
 */
export async function rescheduleMessage(
  tx: Executor,
  message: Pick<LeasedMessage, "id" | "leaseToken">,
  { availableAt, error, countAttempt = true }: { availableAt: Date; error: string | null; countAttempt?: boolean },
): Promise<boolean> {
  const updated = statementRows<{ id: number }>(await tx.execute(sql`
    update outbox_messages
       set leased_until = null, lease_token = null, available_at = ${instantParam(availableAt)}, last_error = ${error},
           attempts = attempts - ${countAttempt ? 0 : 1}
     where id = ${message.id} and lease_token = ${message.leaseToken}
    returning id`));
  return updated.length > 0;
}

/** Deletes every waiting message of an ordering key (its recipient is gone), in the caller's transaction. */
export async function discardMessagesOf(tx: Executor, orderingKey: string): Promise<void> {
  await tx.execute(sql`delete from outbox_messages where ordering_key = ${orderingKey}`);
}

/**
 * Deletes messages written before `before` that are still there (a sender that keeps failing gives up long before;
 * this bounds the table if one never does), at most `batch` at a time, and bodies no message needs any more (those
 * whose last two messages finished at once). Answers how many messages went.
 */
export async function pruneMessages(db: Database, { before, batch = 10_000 }: { before: Date; batch?: number }): Promise<number> {
  const deleted = statementRows<{ id: number }>(await db.execute(sql`
    delete from outbox_messages
     where id in (select id from outbox_messages where created_at < ${instantParam(before)} and (leased_until is null or leased_until < now()) limit ${batch})
    returning id`));
  // A body commits with its messages, so none is ever seen here before the messages that need it.
  await db.execute(sql`
    delete from outbox_bodies
     where id in (select b.id from outbox_bodies b where not exists (select 1 from outbox_messages m where m.body_id = b.id) limit ${batch})`);
  return deleted.length;
}
