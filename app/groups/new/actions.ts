"use server";

import { z } from "zod";
import type { ActionResult } from "@/lib/forms/action-result";
import { runValueAction } from "@/lib/forms/run-action";
import { groupFormSchema } from "@/lib/groups/form-schemas";
import { createGroup } from "@/lib/groups/groups";
import { pathFromName } from "@/lib/projects/path-rules";

/** Creates a group (below `parentId` when given); answers its full path for the form to go to. */
export async function createGroupAction(parentId: unknown, input: unknown): Promise<ActionResult<{ fullPath: string }>> {
  return runValueAction(
    "/groups/new",
    groupFormSchema.extend({ parentId: z.number().int().positive().nullable() }),
    { ...(input as object), parentId },
    async (ctx, { parentId, name, path, visibility, description }) => {
      const { group } = await createGroup(ctx, {
        name,
        path: path || pathFromName(name),
        parentId: parentId ?? undefined,
        visibility,
        description: description?.trim() || undefined,
      });
      return { fullPath: group.fullPath };
    },
  );
}
