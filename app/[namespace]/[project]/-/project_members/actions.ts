"use server";

import { z } from "zod";
import { requireSessionContext } from "@/lib/auth/session";
import { actionSuccess, type ActionResult } from "@/lib/forms/action-result";
import { parseActionInput, projectPathSchema, toActionFailure } from "@/lib/forms/run-action";
import { addMemberFormSchema, editMemberFormSchema } from "@/lib/projects/form-schemas";
import { addMemberByUsername, removeMember, updateMember } from "@/lib/projects/members";
import { suggestUsers } from "@/lib/users/users";

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

/** Changes a member's role and end date in the members table (Maintainer+); an empty date removes the end date. */
export async function updateMemberAction(projectPath: unknown, userId: unknown, input: unknown): Promise<ActionResult<{ accessLevel: number; expiresAt: string | null }>> {
  const ctx = await requireSessionContext(membersPage(projectPath));
  const target = parseActionInput(z.object({ projectPath: projectPathSchema, userId: z.number().int().positive() }), { projectPath, userId });
  if (!target.ok) return target.failure;
  const parsed = parseActionInput(editMemberFormSchema, input);
  if (!parsed.ok) return parsed.failure;
  try {
    const { member } = await updateMember(ctx, target.data.projectPath, target.data.userId, {
      accessLevel: Number(parsed.data.accessLevel),
      expiresAt: parsed.data.expiresAt || null,
    });
    return actionSuccess({ accessLevel: member.accessLevel, expiresAt: member.expiresAt });
  } catch (error) {
    return toActionFailure(error);
  }
}

/** Suggestions for the add-member form's username, as `GET /users?search=` would list them for the viewer. */
export async function suggestUsersAction(query: unknown): Promise<ActionResult<{ username: string; name: string }[]>> {
  const ctx = await requireSessionContext();
  const parsed = parseActionInput(z.string().trim().min(1).max(255), query);
  if (!parsed.ok) return parsed.failure;
  try {
    const users = await suggestUsers(ctx, parsed.data.replace(/^@/, ""));
    return actionSuccess(users.map(({ username, name }) => ({ username, name })));
  } catch (error) {
    return toActionFailure(error);
  }
}
