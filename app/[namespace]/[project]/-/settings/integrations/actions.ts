"use server";

import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { integrationTypeOfSlug } from "@/lib/integrations/catalog";
import { integrationFormSchema } from "@/lib/integrations/form-schemas";
import { saveIntegration } from "@/lib/integrations/integrations";
import { attributesFromForm } from "@/lib/integrations/settings-page";
import { testIntegrationSettings } from "@/lib/integrations/test-settings";

const projectPathSchema = z.string().regex(/^[^/]+\/[^/]+$/, "is not a project path");
const slugSchema = z.string().refine((slug) => integrationTypeOfSlug(slug) !== null && !slug.includes("_"), "is not an integration");

function integrationPage(projectPath: unknown, slug: unknown): string | undefined {
  return typeof projectPath === "string" && typeof slug === "string" && projectPathSchema.safeParse(projectPath).success && slugSchema.safeParse(slug).success
    ? `/${projectPath}/-/settings/integrations/${slug}/edit`
    : undefined;
}

const inputSchema = z.object({ projectPath: projectPathSchema, slug: slugSchema, input: integrationFormSchema });

/** Saves an integration's settings, on or off as the form says. */
export async function saveIntegrationAction(projectPath: unknown, slug: unknown, input: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(integrationPage(projectPath, slug));
  const parsed = parseActionInput(inputSchema, { projectPath, slug, input });
  if (!parsed.ok) return parsed.failure;
  try {
    const { projectPath: reference, slug: name, input: form } = parsed.data;
    await saveIntegration(ctx, reference, integrationTypeOfSlug(name)!, attributesFromForm(form), { active: form.active });
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}

/** "Test settings": sends a sample push with the form's settings, unsaved; says whether the receiver took it. */
export async function testIntegrationAction(projectPath: unknown, slug: unknown, input: unknown): Promise<ActionResult<string>> {
  const ctx = await requireSessionContext(integrationPage(projectPath, slug));
  const parsed = parseActionInput(inputSchema, { projectPath, slug, input });
  if (!parsed.ok) return parsed.failure;
  try {
    const { projectPath: reference, slug: name, input: form } = parsed.data;
    return actionSuccess(await testIntegrationSettings(ctx, reference, integrationTypeOfSlug(name)!, attributesFromForm(form)));
  } catch (error) {
    return toActionFailure(error);
  }
}
