"use server";

import { z } from "zod";
import type { ActionResult } from "@/lib/forms/action-result";
import { runFormAction, runValueAction } from "@/lib/forms/run-action";
import { addGroupMemberByUsername, removeGroupMember, updateGroupMember } from "@/lib/groups/members";
import { addMemberFormSchema, editMemberFormSchema } from "@/lib/projects/form-schemas";

// The page binds the group's id, not its path: a top-level group's path may be all digits, which verbs read as an id.
const groupId = z.number().int().positive();
const memberOf = z.object({ groupId, userId: z.number().int().positive() });
/** Where a visitor whose session ended goes back to after signing in. */
const returnTo = "/dashboard/groups";

export async function addGroupMemberAction(group: unknown, input: unknown): Promise<ActionResult<{ username: string }>> {
  return runValueAction(returnTo, addMemberFormSchema.extend({ groupId }), { ...(input as object), groupId: group }, async (ctx, { groupId, username, accessLevel }) => {
    const { user } = await addGroupMemberByUsername(ctx, String(groupId), { username, accessLevel: Number(accessLevel) });
    return { username: user.username };
  });
}

export async function removeGroupMemberAction(group: unknown, userId: unknown): Promise<ActionResult> {
  return runFormAction(returnTo, memberOf, { groupId: group, userId }, (ctx, { groupId, userId }) => removeGroupMember(ctx, String(groupId), userId));
}

/** Changes a member's role and end date (Owners); an empty date removes the end date. */
export async function updateGroupMemberAction(
  group: unknown,
  userId: unknown,
  input: unknown,
): Promise<ActionResult<{ accessLevel: number; expiresAt: string | null }>> {
  return runValueAction(
    returnTo,
    editMemberFormSchema.extend(memberOf.shape),
    { ...(input as object), groupId: group, userId },
    async (ctx, { groupId, userId, accessLevel, expiresAt }) => {
      const { member } = await updateGroupMember(ctx, String(groupId), userId, { accessLevel: Number(accessLevel), expiresAt: expiresAt || null });
      return { accessLevel: member.accessLevel, expiresAt: member.expiresAt };
    },
  );
}
