import { z } from "zod";

/** The group form (new group, subgroup, settings); an empty path is made from the name, as GitLab's form does. */
export const groupFormSchema = z.object({
  name: z.string().trim().min(1, "Enter a group name.").max(255),
  path: z.string().trim().max(255).optional(),
  visibility: z.enum(["private", "internal", "public"]),
  description: z.string().max(500, "Keep the description under 500 characters.").optional(),
});
export type GroupForm = z.infer<typeof groupFormSchema>;
