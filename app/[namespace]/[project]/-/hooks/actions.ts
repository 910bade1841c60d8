"use server";

import { z } from "zod";
import type { ActionResult } from "@/lib/forms/action-result";
import { projectPathSchema, runFormAction, runMessageAction } from "@/lib/forms/run-action";
import { hookFormSchema } from "@/lib/webhooks/form-schemas";
import { createHook, deleteHook, updateHook } from "@/lib/webhooks/hooks";
import { resendHookLog } from "@/lib/webhooks/logs";
import { hookAttributesFromForm } from "@/lib/webhooks/settings-page";
import { testHook, testTriggers } from "@/lib/webhooks/test-hooks";

const idSchema = z.number().int().positive().max(2_147_483_647);

function hooksPage(projectPath: unknown): string | undefined {
  return typeof projectPath === "string" && projectPathSchema.safeParse(projectPath).success ? `/${projectPath}/-/hooks` : undefined;
}

export async function createHookAction(projectPath: unknown, input: unknown): Promise<ActionResult> {
  return runFormAction(hooksPage(projectPath), z.object({ projectPath: projectPathSchema, input: hookFormSchema }), { projectPath, input }, (ctx, data) =>
    createHook(ctx, data.projectPath, hookAttributesFromForm(data.input, { editing: false })),
  );
}

export async function updateHookAction(projectPath: unknown, hookId: unknown, input: unknown): Promise<ActionResult> {
  const schema = z.object({ projectPath: projectPathSchema, hookId: idSchema, input: hookFormSchema });
  return runFormAction(hooksPage(projectPath), schema, { projectPath, hookId, input }, (ctx, data) =>
    updateHook(ctx, data.projectPath, data.hookId, hookAttributesFromForm(data.input, { editing: true })),
  );
}

export async function deleteHookAction(projectPath: unknown, hookId: unknown): Promise<ActionResult> {
  const schema = z.object({ projectPath: projectPathSchema, hookId: idSchema });
  return runFormAction(hooksPage(projectPath), schema, { projectPath, hookId }, (ctx, data) => deleteHook(ctx, data.projectPath, data.hookId));
}

/** Sends a trigger's sample to the hook; GitLab's UI says "Hook executed successfully" or what went wrong. */
export async function testHookAction(projectPath: unknown, hookId: unknown, trigger: unknown): Promise<ActionResult<string>> {
  const schema = z.object({ projectPath: projectPathSchema, hookId: idSchema, trigger: z.enum(testTriggers) });
  return runMessageAction(hooksPage(projectPath), schema, { projectPath, hookId, trigger }, async (ctx, data) => {
    await testHook(ctx, data.projectPath, data.hookId, data.trigger);
    return "Hook executed successfully.";
  });
}

export async function resendHookLogAction(projectPath: unknown, hookId: unknown, logId: unknown): Promise<ActionResult<string>> {
  const schema = z.object({ projectPath: projectPathSchema, hookId: idSchema, logId: z.number().int().positive() });
  return runMessageAction(hooksPage(projectPath), schema, { projectPath, hookId, logId }, async (ctx, data) => {
    const result = await resendHookLog(ctx, data.projectPath, data.hookId, data.logId);
    return `Request sent again: ${result.responseStatus}.`;
  });
}
