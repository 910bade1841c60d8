import { z } from "zod";
import { booleanParam } from "@/lib/api/param-types";
import { branchFilterStrategies, dormantHookEvents, type DormantHookEvent } from "@/lib/db/schema";
import type { HookAttributes } from "./hooks";

/** `custom_headers`: `[{ "key": …, "value": … }]`, as GitLab's hooks API takes them. */
const customHeadersParam = z.array(z.object({ key: z.string(), value: z.string() }));

const optionalBoolean = booleanParam.optional();
const dormantParams = Object.fromEntries(dormantHookEvents.map((name) => [name, optionalBoolean])) as Record<DormantHookEvent, typeof optionalBoolean>;

/** The parameters `POST` and `PUT /projects/:id/hooks[/:hook_id]` take, GitLab's names and types. */
export const hookParams = {
  url: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  token: z.string().optional(),
  push_events: booleanParam.optional(),
  push_events_branch_filter: z.string().optional(),
  branch_filter_strategy: z.enum(branchFilterStrategies).optional(),
  tag_push_events: booleanParam.optional(),
  issues_events: booleanParam.optional(),
  confidential_issues_events: booleanParam.optional(),
  note_events: booleanParam.optional(),
  confidential_note_events: booleanParam.optional(),
  member_events: booleanParam.optional(),
  milestone_events: booleanParam.optional(),
  enable_ssl_verification: booleanParam.optional(),
  custom_webhook_template: z.string().optional(),
  custom_headers: customHeadersParam.optional(),
  ...dormantParams,
};

/** The parsed parameters as a hook's attributes (they already carry GitLab's names). */
export function hookAttributesOf(params: z.infer<z.ZodObject<typeof hookParams>>): HookAttributes & { url: string } {
  return params;
}
