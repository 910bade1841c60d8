import "server-only";
import { unstable_rethrow } from "next/navigation";
import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import type { Ctx } from "@/lib/context";
import { ApiError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from "@/lib/errors";
import { logger } from "@/lib/log";
import { RateLimitExceeded } from "@/lib/rate-limits/rate-limits";
import { actionSuccess, invalidInput, type ActionResult } from "./action-result";

/** "404 User Not Found" is the API's wording; people read "User not found". */
function messageFor(error: ApiError): string {
  if (error instanceof NotFoundError) return error.thing ? `${error.thing} not found` : "Not found";
  if (error instanceof ForbiddenError) {
    const reason = error.message.replace(/^403 Forbidden( - )?/, "");
    return reason ? reason.charAt(0).toUpperCase() + reason.slice(1) : "You are not allowed to do that.";
  }
  if (error instanceof ValidationError) return "Please correct the highlighted fields.";
  return error.message;
}

/** The model's attribute names are snake_case; our form fields are camelCase. */
function fieldName(attribute: string): string {
  return attribute.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * A typed domain error (or a throttle's refusal) as a form error; anything else is a bug, logged here and shown as a
 * generic failure.
 */
export function toActionFailure(error: unknown): ActionResult<never> {
  unstable_rethrow(error);
  if (error instanceof RateLimitExceeded) {
    return { ok: false, message: `Too many attempts. Try again in ${error.retryAfterSeconds()} seconds.` };
  }
  if (error instanceof ApiError) {
    if (error instanceof ConflictError && error.attribute) {
      return { ok: false, message: "Please correct the highlighted fields.", fieldErrors: { [fieldName(error.attribute)]: [error.message] } };
    }
    const fieldErrors =
      error instanceof ValidationError
        ? Object.fromEntries(Object.entries(error.errors).map(([attribute, problems]) => [fieldName(attribute), problems.map((problem) => `${humanAttribute(attribute)} ${problem}`)]))
        : undefined;
    return { ok: false, message: messageFor(error), fieldErrors };
  }
  logger.error({ err: error }, "server action failed");
  return { ok: false, message: "Something went wrong. Please try again." };
}

function humanAttribute(attribute: string): string {
  const words = attribute.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Parses an action's input with its schema: server actions are public endpoints, whatever the form checked. */
export function parseActionInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
): { ok: true; data: z.output<S> } | { ok: false; failure: ActionResult<never> } {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data };
  const fieldErrors: Record<string, string[]> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.join(".") || "form";
    (fieldErrors[key] ??= []).push(issue.message);
  }
  return { ok: false, failure: invalidInput(fieldErrors) };
}

/** A project's full path (`namespace/path`, the namespace a user's or a group's at any depth), as the project pages' server actions take it. */
export const projectPathSchema = z.string().regex(/^[^/]+(?:\/[^/]+)+$/, "is not a project path");

/**
 * The skeleton every server action shares: the signed-in person's context (sign-in first, back to `returnTo`), the
 * input checked with `schema`, then `act`, whose typed errors become the form's failure.
 */
async function runSessionAction<S extends z.ZodType, T>(
  returnTo: string | undefined,
  schema: S,
  input: unknown,
  act: (ctx: Ctx, data: z.output<S>) => Promise<ActionResult<T>>,
): Promise<ActionResult<T>> {
  const ctx = await requireSessionContext(returnTo);
  const parsed = parseActionInput(schema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    return await act(ctx, parsed.data);
  } catch (error) {
    return toActionFailure(error);
  }
}

/** A server action that saves one form: `verb` with the checked input; what it answers stays on the server. */
export function runFormAction<S extends z.ZodType>(
  returnTo: string | undefined,
  schema: S,
  input: unknown,
  verb: (ctx: Ctx, data: z.output<S>) => Promise<unknown>,
): Promise<ActionResult> {
  return runSessionAction(returnTo, schema, input, async (ctx, data) => {
    await verb(ctx, data);
    return actionSuccess();
  });
}

/** A server action whose success carries what the form needs next (where the new record is, what was saved). */
export function runValueAction<S extends z.ZodType, T>(
  returnTo: string | undefined,
  schema: S,
  input: unknown,
  verb: (ctx: Ctx, data: z.output<S>) => Promise<T>,
): Promise<ActionResult<T>> {
  return runSessionAction(returnTo, schema, input, async (ctx, data) => actionSuccess(await verb(ctx, data)));
}

/** A server action whose success is a message the page shows (a test's or a resend's outcome). */
export function runMessageAction<S extends z.ZodType>(
  returnTo: string | undefined,
  schema: S,
  input: unknown,
  verb: (ctx: Ctx, data: z.output<S>) => Promise<string>,
): Promise<ActionResult<string>> {
  return runValueAction(returnTo, schema, input, verb);
}

const recordIdSchema = z.number().int().positive();

/** A server action on one record by its id (the admin area's buttons): `runFormAction` with the id as its input. */
export async function runActionOnRecord(
  returnTo: string,
  id: unknown,
  verb: (ctx: Ctx, id: number) => Promise<unknown>,
): Promise<ActionResult> {
  return runFormAction(returnTo, recordIdSchema, id, verb);
}
