"use server";

import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { hookFormSchema } from "@/lib/webhooks/form-schemas";
import { createHook, deleteHook, updateHook } from "@/lib/webhooks/hooks";
import { resendHookLog } from "@/lib/webhooks/logs";
import { hookAttributesFromForm } from "@/lib/webhooks/settings-page";
import { testHook, testTriggers } from "@/lib/webhooks/test-hooks";

const projectPathSchema = z.string().regex(/^[^/]+\/[^/]+$/, "is not a project path");
const idSchema = z.number().int().positive().max(2_147_483_647);

function hooksPage(projectPath: unknown): string | undefined {
  return typeof projectPath === "string" && projectPathSchema.safeParse(projectPath).success ? `/${projectPath}/-/hooks` : undefined;
}

export async function createHookAction(projectPath: unknown, input: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(hooksPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, input: hookFormSchema }), { projectPath, input });
  if (!parsed.ok) return parsed.failure;
  try {
    await createHook(ctx, parsed.data.projectPath, hookAttributesFromForm(parsed.data.input, { editing: false }));
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function updateHookAction(projectPath: unknown, hookId: unknown, input: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(hooksPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, hookId: idSchema, input: hookFormSchema }), { projectPath, hookId, input });
  if (!parsed.ok) return parsed.failure;
  try {
    await updateHook(ctx, parsed.data.projectPath, parsed.data.hookId, hookAttributesFromForm(parsed.data.input, { editing: true }));
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function deleteHookAction(projectPath: unknown, hookId: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(hooksPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, hookId: idSchema }), { projectPath, hookId });
  if (!parsed.ok) return parsed.failure;
  try {
    await deleteHook(ctx, parsed.data.projectPath, parsed.data.hookId);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

/** Sends a trigger's sample to the hook; GitLab's UI says "Hook executed successfully" or what went wrong. */
export async function testHookAction(projectPath: unknown, hookId: unknown, trigger: unknown): Promise<ActionResult<string>> {
  const ctx = await requireSessionContext(hooksPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, hookId: idSchema, trigger: z.enum(testTriggers) }), { projectPath, hookId, trigger });
  if (!parsed.ok) return parsed.failure;
  try {
    await testHook(ctx, parsed.data.projectPath, parsed.data.hookId, parsed.data.trigger);
    return actionSuccess("Hook executed successfully.");
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function resendHookLogAction(projectPath: unknown, hookId: unknown, logId: unknown): Promise<ActionResult<string>> {
  const ctx = await requireSessionContext(hooksPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, hookId: idSchema, logId: z.number().int().positive() }), { projectPath, hookId, logId });
  if (!parsed.ok) return parsed.failure;
  try {
    const result = await resendHookLog(ctx, parsed.data.projectPath, parsed.data.hookId, parsed.data.logId);
    return actionSuccess(`Request sent again: ${result.responseStatus}.`);
  } catch (error) {
    return toActionFailure(error);
  }
}
