import { z } from "zod";
import { dateTimeParam } from "@/lib/api/param-types";
import type { SilenceInput } from "./silences";
import type { Weekday } from "./silence-rules";

/**
 * A silence's parameters, as `POST` and `PUT …/silences` take them: `matchers` as a list of matcher texts or one text
 * listing them (`{service="db", severity=~"high|critical"}`), then `starts_at` and `ends_at` or a weekly
 * `recurrence`. The matcher language and the windows are checked by the verb, whose messages name what is wrong.
 */
export const silenceParams = {
  matchers: z.union([z.array(z.string()), z.string()]),
  starts_at: dateTimeParam.nullable().optional(),
  ends_at: dateTimeParam.nullable().optional(),
  recurrence: z
    .object({
      days: z.array(z.string()),
      start_time: z.string(),
      end_time: z.string(),
      time_zone: z.string(),
    })
    .nullable()
    .optional(),
  reason: z.string(),
};

export function silenceInputOf(params: {
  matchers: string | string[];
  starts_at?: Date | null;
  ends_at?: Date | null;
  recurrence?: { days: string[]; start_time: string; end_time: string; time_zone: string } | null;
  reason: string;
}): SilenceInput {
  return {
    matchers: params.matchers,
    startsAt: params.starts_at ?? null,
    endsAt: params.ends_at ?? null,
    recurrence: params.recurrence ? { ...params.recurrence, days: params.recurrence.days as Weekday[] } : null,
    reason: params.reason,
  };
}
