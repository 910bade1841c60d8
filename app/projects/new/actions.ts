"use server";

import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { newProjectFormSchema } from "@/lib/projects/form-schemas";
import { createProject } from "@/lib/projects/projects";

/** Creates a project in the chosen namespace (the user's own or a group's); answers with its path for the form to go to. */
export async function createProjectAction(input: unknown): Promise<ActionResult<{ fullPath: string }>> {
  const ctx = await requireSessionContext("/projects/new");
  const parsed = parseActionInput(newProjectFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  const { name, namespaceId, path, visibility, description } = parsed.data;
  try {
    const { project, namespace } = await createProject(ctx, {
      name,
      namespaceId: Number(namespaceId),
      path: path || undefined,
      visibility,
      description: description?.trim() || undefined,
    });
    return actionSuccess({ fullPath: `${namespace.fullPath}/${project.path}` });
  } catch (error) {
    return toActionFailure(error);
  }
}
