"use server";

import { z } from "zod";
import type { ActionResult } from "@/lib/forms/action-result";
import { runFormAction, runValueAction } from "@/lib/forms/run-action";
import { groupFormSchema } from "@/lib/groups/form-schemas";
import { deleteGroup, updateGroup } from "@/lib/groups/groups";

// The page binds the group's id, not its path: a top-level group's path may be all digits, which verbs read as an id,
// and the path is what a save may change.
const groupId = z.number().int().positive();
/** Where a visitor whose session ended goes back to after signing in. */
const returnTo = "/dashboard/groups";

/** Saves the group's name, path, description and visibility; answers its full path, which a new path changes. */
export async function updateGroupAction(group: unknown, input: unknown): Promise<ActionResult<{ fullPath: string }>> {
  return runValueAction(
    returnTo,
    groupFormSchema.extend({ groupId }),
    { ...(input as object), groupId: group },
    async (ctx, { groupId, name, path, visibility, description }) => {
      const { group } = await updateGroup(ctx, String(groupId), { name, path: path || undefined, visibility, description: description?.trim() ?? "" });
      return { fullPath: group.fullPath };
    },
  );
}

export async function deleteGroupAction(group: unknown): Promise<ActionResult> {
  return runFormAction(returnTo, z.object({ groupId }), { groupId: group }, (ctx, { groupId }) => deleteGroup(ctx, String(groupId)));
}
