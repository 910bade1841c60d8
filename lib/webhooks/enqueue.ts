import "server-only";
import { randomUUID } from "node:crypto";
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/lib/db";
import { projectHooks } from "@/lib/db/schema";
import { enqueueSelected } from "@/lib/outbox/outbox";
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
 * Writes a delivery of `data` to every hook of the project that takes `trigger` and is executable now, in the
 * caller's transaction: one statement, however many hooks there are, which writes the payload once. A push names its branch,
 * which each hook's branch filter must let through. Answers how many deliveries were written.
 */
export async function enqueueHookDeliveries(
  tx: Executor,
  event: { projectId: number; trigger: HookTrigger; data: unknown; now: Date; branch?: string; eventUuid?: string },
): Promise<number> {
  const { column } = hookTriggers[event.trigger];
  const eventUuid = event.eventUuid ?? randomUUID();
  const data = JSON.stringify(event.data);
  return enqueueSelected(
    tx,
    sql`select ${webHookTopic}::text, ${`${webHookTopic}:`}::text || ${projectHooks.id}::text,
        jsonb_build_object('hookId', ${projectHooks.id}, 'trigger', ${event.trigger}::text,
          'idempotencyKey', gen_random_uuid()::text, 'eventUuid', ${eventUuid}::text)
      from ${projectHooks}
     where ${projectHooks.projectId} = ${event.projectId} and ${column} and ${executableHooksAt(event.now)}
       ${event.branch === undefined ? sql`` : sql`and ${branchFilterAllows(event.branch)}`}
     order by ${projectHooks.id}`,
    data,
  );
}
