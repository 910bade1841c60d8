import "server-only";
import { randomUUID } from "node:crypto";
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { projectHooks } from "@/lib/db/schema";
import type { DatabaseHandle } from "@/lib/db/drivers";
import { completeMessages, enqueueSelected, enqueueSelectedWithBodies, stillHeld, type LeasedMessage } from "@/lib/outbox/outbox";
import type { OutboxRunSender } from "@/lib/outbox/worker";
import { executableHooksAt } from "./auto-disabling";
import { hookTriggers, type HookTrigger } from "./triggers";

/** The outbox topic of webhook deliveries. */
export const webHookTopic = "web_hook";

/** Deliveries to one hook go out in the order they were written. */
export function hookOrderingKey(hookId: number): string {
  return `${webHookTopic}:${hookId}`;
}

/**
 * What a delivery carries in the outbox: which hook, why, the payload, and the keys every attempt repeats. The payload
 * is kept as its JSON text, so it goes out with its keys in GitLab's order (jsonb would sort them), and once for all the
 * hooks it goes to (the message's shared body).
 */
export interface HookDelivery {
  hookId: number;
  trigger: HookTrigger;
  data: unknown;
  /** `Idempotency-Key`: the same on every attempt of this delivery. */
  idempotencyKey: string;
  /** `X-Gitlab-Event-UUID`: the same for every hook the one change was sent to. */
  eventUuid: string;
}

/** Hooks whose push branch filter lets a push to `branch` through (GitLab's `branch_filter_strategy`). */
function branchFilterAllows(branch: string): SQL {
  const filter = sql`coalesce(${projectHooks.pushEventsBranchFilter}, '')`;
  // A wildcard filter: `*` stands for any run of characters, everything else for itself.
  const likePattern = sql`replace(replace(replace(replace(${filter}, '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%')`;
  return sql`(${projectHooks.branchFilterStrategy} = 'all_branches' or ${filter} = ''
    or (${projectHooks.branchFilterStrategy} = 'wildcard' and ${branch} like ${likePattern})
    or (${projectHooks.branchFilterStrategy} = 'regex' and ${branch} ~ ${filter}))`;
}

/**
 * Whether the project has a hook that would take one of `triggers` now, as a condition: asked together with the chat
 * integrations' question in one statement (`listenersOf`), so callers skip building a payload nobody gets.
 */
export function hooksTake(projectId: number, triggers: HookTrigger[], now: Date): SQL {
  if (triggers.length === 0) return sql`false`;
  const wanted = sql.join(
    triggers.map((trigger) => sql`${hookTriggers[trigger].column}`),
    sql` or `,
  );
  return sql`exists (select 1 from ${projectHooks} where ${and(eq(projectHooks.projectId, projectId), sql`(${wanted})`, executableHooksAt(now))})`;
}

/**
 * The outbox topic of changes sent to hooks: the request writes one message per change, naming the hooks that take it,
 * and the worker fans it out to one delivery per hook (`webHookFanOut`), so the request pays for one row whatever the
 * number of hooks, and the fan-out is written for many changes at once.
 */
export const webHookEventTopic = "web_hook_event";

/** A project's changes are fanned out in the order they were written, so each hook's deliveries keep that order. */
function hookEventOrderingKey(projectId: number): string {
  return `${webHookEventTopic}:${projectId}`;
}

/**
 * Writes a change's delivery of `data` to every hook of the project that takes `trigger` and is executable now, in
 * the caller's transaction: one statement, which writes nothing when no hook takes it, and otherwise one outbox
 * message naming the hooks (decided now, as GitLab selects them when the change happens) and the payload once. A push
 * names its branch, which each hook's branch filter must let through. Answers whether any hook takes it.
 */
export async function enqueueHookDeliveries(
  tx: Executor,
  event: { projectId: number; trigger: HookTrigger; data: unknown; now: Date; branch?: string; eventUuid?: string },
): Promise<boolean> {
  const { column } = hookTriggers[event.trigger];
  const eventUuid = event.eventUuid ?? randomUUID();
  const written = await enqueueSelected(
    tx,
    sql`select ${webHookEventTopic}::text, ${hookEventOrderingKey(event.projectId)}::text,
        jsonb_build_object('trigger', ${event.trigger}::text, 'eventUuid', ${eventUuid}::text,
          'hookIds', jsonb_agg(${projectHooks.id} order by ${projectHooks.id}))
      from ${projectHooks}
     where ${projectHooks.projectId} = ${event.projectId} and ${column} and ${executableHooksAt(event.now)}
       ${event.branch === undefined ? sql`` : sql`and ${branchFilterAllows(event.branch)}`}
    having count(*) > 0`,
    JSON.stringify(event.data),
  );
  return written > 0;
}

/** How many of a project's changes one fan-out takes at once. */
const fanOutRunLength = 20;

/**
 * The outbox's sender of `webHookEventTopic`: takes a run of one project's changes and writes, in one statement, a
 * delivery to each hook each names that still exists (the deliveries' sender decides whether a hook may be sent to),
 * sharing the change's payload, in the changes' order and then the hooks'; then completes the changes. Each delivery
 * gets its `Idempotency-Key` here, once for all its attempts.
 */
export function webHookFanOut(): OutboxRunSender {
  return {
    runLength: fanOutRunLength,
    async sendRun({ db }: DatabaseHandle, run: LeasedMessage[]): Promise<void> {
      await db.transaction(async (tx) => {
        await enqueueSelectedWithBodies(
          tx,
          sql`select ${webHookTopic}::text, ${`${webHookTopic}:`}::text || ${projectHooks.id}::text,
              jsonb_build_object('hookId', ${projectHooks.id}, 'trigger', e.payload->>'trigger',
                'idempotencyKey', gen_random_uuid()::text, 'eventUuid', e.payload->>'eventUuid'),
              e.body_id
            from outbox_messages e
           cross join lateral jsonb_array_elements_text(e.payload->'hookIds') with ordinality as named(hook_id, position)
            join ${projectHooks} on ${projectHooks.id} = named.hook_id::bigint
           where ${stillHeld(run, "e")}
           order by e.id, named.position`,
        );
        await completeMessages(tx, run);
      });
    },
  };
}
