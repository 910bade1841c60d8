"use server";

import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, toActionFailure } from "@/lib/forms/run-action";
import { addMemberFormSchema } from "@/lib/projects/form-schemas";
import { addMemberByUsername, removeMember } from "@/lib/projects/members";

const projectPathSchema = z.string().regex(/^[^/]+\/[^/]+$/, "is not a project path");

function membersPage(projectPath: unknown): string | undefined {
  return typeof projectPath === "string" && projectPathSchema.safeParse(projectPath).success ? `/${projectPath}/-/project_members` : undefined;
}

export async function addMemberAction(projectPath: unknown, input: unknown): Promise<ActionResult<{ username: string }>> {
  const ctx = await requireSessionContext(membersPage(projectPath));
  const project = parseActionInput(projectPathSchema, projectPath);
  if (!project.ok) return project.failure;
  const parsed = parseActionInput(addMemberFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  const { username, accessLevel } = parsed.data;
  try {
    const { user } = await addMemberByUsername(ctx, project.data, { username, accessLevel: Number(accessLevel) });
    return actionSuccess({ username: user.username });
  } catch (error) {
    return toActionFailure(error);
  }
}

export async function removeMemberAction(projectPath: unknown, userId: unknown): Promise<ActionResult> {
  const ctx = await requireSessionContext(membersPage(projectPath));
  const parsed = parseActionInput(z.object({ projectPath: projectPathSchema, userId: z.number().int().positive() }), { projectPath, userId });
  if (!parsed.ok) return parsed.failure;
  try {
    await removeMember(ctx, parsed.data.projectPath, parsed.data.userId);
    return actionSuccess();
  } catch (error) {
    return toActionFailure(error);
  }
}
