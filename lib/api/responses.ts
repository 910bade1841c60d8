import { z } from "zod";
import type { Answer } from "@/lib/http/answer";

type SuccessStatus = 200 | 201 | 202;

/**
 * What a route answers when it succeeds: the status and the JSON body's schema, or 204 with no body. A few answer
 * in more than one status (a test alert answers as the monitoring tool's receiver would).
 */
export type EndpointResponse = { status: SuccessStatus | readonly SuccessStatus[]; body: z.ZodType; description?: string } | { status: 204; description?: string };

/** The statuses a declared response may answer with. */
export function successStatuses(declared: EndpointResponse): readonly number[] {
  return typeof declared.status === "number" ? [declared.status] : declared.status;
}

/** 200 with the entity. */
export function okWith(body: z.ZodType): EndpointResponse {
  return { status: 200, body };
}

/** 200 with a page of a list of the entity. */
export function listOf(item: z.ZodType): EndpointResponse {
  return { status: 200, body: z.array(item) };
}

/** 201 with what was created (GitLab's POSTs answer 201, whatever they do). */
export function createdWith(body: z.ZodType): EndpointResponse {
  return { status: 201, body };
}

/** GitLab's `202 Accepted` for a deletion it schedules. */
export const acceptedMessage: EndpointResponse = { status: 202, body: z.strictObject({ message: z.literal("202 Accepted") }) };

/** 204 with no body. */
export const noContentAnswer: EndpointResponse = { status: 204 };

/**
 * How an answer departs from its route's declared response: a success with another status, a body where none is
 * declared, or a JSON body its schema refuses (each zod issue as `path: message`). Empty when it conforms. Errors
 * (4xx, 5xx) have GitLab's own shape and `304 Not Modified` has no body: neither is the declared entity.
 */
export function responseMismatches(declared: EndpointResponse, answer: Answer): string[] {
  if (answer.status < 200 || answer.status >= 300) return [];
  const statuses = successStatuses(declared);
  if (!statuses.includes(answer.status)) return [`answered ${answer.status}, declared ${statuses.join(" or ")}`];
  if (!("body" in declared)) return answer.body === null ? [] : ["answered a body, declared none"];
  let body: unknown;
  try {
    body = JSON.parse(answer.body ?? "");
  } catch {
    return ["answered no JSON body"];
  }
  const parsed = declared.body.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.flatMap((issue) => issueLines(issue, []));
}

/** A zod issue as `path: message`; a union's, as each of its options' issues, so one sees why every option failed. */
function issueLines(issue: z.core.$ZodIssue, prefix: PropertyKey[]): string[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    return issue.errors.flatMap((option, index) => option.map((inner) => issueLines(inner, path).map((line) => `[option ${index + 1}] ${line}`)).flat());
  }
  return [`${path.map(String).join(".") || "(body)"}: ${issue.message}`];
}
