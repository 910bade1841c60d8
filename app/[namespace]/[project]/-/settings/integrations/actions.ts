"use server";

import { z } from "zod";
import type { ActionResult } from "@/lib/forms/action-result";
import { projectPathSchema, runFormAction, runMessageAction } from "@/lib/forms/run-action";
import { integrationTypeOfSlug } from "@/lib/integrations/catalog";
import { integrationFormSchema } from "@/lib/integrations/form-schemas";
import { saveIntegration } from "@/lib/integrations/integrations";
import { attributesFromForm } from "@/lib/integrations/settings-page";
import { testIntegrationSettings } from "@/lib/integrations/test-settings";

const slugSchema = z.string().refine((slug) => integrationTypeOfSlug(slug) !== null && !slug.includes("_"), "is not an integration");

function integrationPage(projectPath: unknown, slug: unknown): string | undefined {
  return typeof projectPath === "string" && typeof slug === "string" && projectPathSchema.safeParse(projectPath).success && slugSchema.safeParse(slug).success
    ? `/${projectPath}/-/settings/integrations/${slug}/edit`
    : undefined;
}

const inputSchema = z.object({ projectPath: projectPathSchema, slug: slugSchema, input: integrationFormSchema });

/** Saves an integration's settings, on or off as the form says. */
export async function saveIntegrationAction(projectPath: unknown, slug: unknown, input: unknown): Promise<ActionResult> {
  return runFormAction(integrationPage(projectPath, slug), inputSchema, { projectPath, slug, input }, (ctx, data) =>
    saveIntegration(ctx, data.projectPath, integrationTypeOfSlug(data.slug)!, attributesFromForm(data.input), { active: data.input.active }),
  );
}

/** "Test settings": sends a sample push with the form's settings, unsaved; says whether the receiver took it. */
export async function testIntegrationAction(projectPath: unknown, slug: unknown, input: unknown): Promise<ActionResult<string>> {
  return runMessageAction(integrationPage(projectPath, slug), inputSchema, { projectPath, slug, input }, (ctx, data) =>
    testIntegrationSettings(ctx, data.projectPath, integrationTypeOfSlug(data.slug)!, attributesFromForm(data.input)),
  );
}
