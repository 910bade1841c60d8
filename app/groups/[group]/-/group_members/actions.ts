"use server";

import { z } from "zod";
import type { ActionResult } from "@/lib/forms/action-result";
import { groupPathSchema, runFormAction, runValueAction } from "@/lib/forms/run-action";
import { addGroupMemberByUsername, removeGroupMember, updateGroupMember } from "@/lib/groups/members";
import { groupPagePath } from "@/lib/groups/paths";
import { addMemberFormSchema, editMemberFormSchema } from "@/lib/projects/form-schemas";

function membersPage(groupPath: unknown): string | undefined {
  return groupPathSchema.safeParse(groupPath).success ? groupPagePath(groupPath as string, "group_members") : undefined;
}

const memberOf = z.object({ groupPath: groupPathSchema, userId: z.number().int().positive() });

export async function addGroupMemberAction(groupPath: unknown, input: unknown): Promise<ActionResult<{ username: string }>> {
  return runValueAction(
    membersPage(groupPath),
    addMemberFormSchema.extend({ groupPath: groupPathSchema }),
    { ...(input as object), groupPath },
    async (ctx, { groupPath, username, accessLevel }) => {
      const { user } = await addGroupMemberByUsername(ctx, groupPath, { username, accessLevel: Number(accessLevel) });
      return { username: user.username };
    },
  );
}

export async function removeGroupMemberAction(groupPath: unknown, userId: unknown): Promise<ActionResult> {
  return runFormAction(membersPage(groupPath), memberOf, { groupPath, userId }, (ctx, { groupPath, userId }) => removeGroupMember(ctx, groupPath, userId));
}

/** Changes a member's role and end date (Owners); an empty date removes the end date. */
export async function updateGroupMemberAction(
  groupPath: unknown,
  userId: unknown,
  input: unknown,
): Promise<ActionResult<{ accessLevel: number; expiresAt: string | null }>> {
  return runValueAction(
    membersPage(groupPath),
    editMemberFormSchema.extend(memberOf.shape),
    { ...(input as object), groupPath, userId },
    async (ctx, { groupPath, userId, accessLevel, expiresAt }) => {
      const { member } = await updateGroupMember(ctx, groupPath, userId, { accessLevel: Number(accessLevel), expiresAt: expiresAt || null });
      return { accessLevel: member.accessLevel, expiresAt: member.expiresAt };
    },
  );
}
