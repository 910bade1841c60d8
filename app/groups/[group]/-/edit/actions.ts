"use server";

import { z } from "zod";
import type { ActionResult } from "@/lib/forms/action-result";
import { groupPathSchema, runFormAction, runValueAction } from "@/lib/forms/run-action";
import { groupFormSchema } from "@/lib/groups/form-schemas";
import { deleteGroup, updateGroup } from "@/lib/groups/groups";
import { groupPagePath } from "@/lib/groups/paths";

function settingsPage(groupPath: unknown): string | undefined {
  return groupPathSchema.safeParse(groupPath).success ? groupPagePath(groupPath as string, "edit") : undefined;
}

/** Saves the group's name, path, description and visibility; answers its full path, which a new path changes. */
export async function updateGroupAction(groupPath: unknown, input: unknown): Promise<ActionResult<{ fullPath: string }>> {
  return runValueAction(
    settingsPage(groupPath),
    groupFormSchema.extend({ groupPath: groupPathSchema }),
    { ...(input as object), groupPath },
    async (ctx, { groupPath, name, path, visibility, description }) => {
      const { group } = await updateGroup(ctx, groupPath, { name, path: path || undefined, visibility, description: description?.trim() ?? "" });
      return { fullPath: group.fullPath };
    },
  );
}

export async function deleteGroupAction(groupPath: unknown): Promise<ActionResult> {
  return runFormAction(settingsPage(groupPath), z.object({ groupPath: groupPathSchema }), { groupPath }, (ctx, { groupPath }) => deleteGroup(ctx, groupPath));
}
