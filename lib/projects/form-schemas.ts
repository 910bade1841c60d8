import { z } from "zod";

export const projectVisibilityOptions = [
  { value: "private", label: "Private", description: "Only project members can see the project." },
  { value: "internal", label: "Internal", description: "Any signed-in user can see the project." },
  { value: "public", label: "Public", description: "Anyone, signed in or not, can see the project." },
] as const;

export const newProjectFormSchema = z.object({
  name: z.string().trim().min(1, "Enter a project name.").max(255),
  // The namespace's id, as the select holds it.
  namespaceId: z.string().regex(/^[1-9]\d{0,9}$/, "Choose where the project goes."),
  // Empty means "derive it from the name", as GitLab does.
  path: z.string().trim().max(255).optional(),
  visibility: z.enum(["private", "internal", "public"]),
  description: z.string().max(2000).optional(),
});
export type NewProjectForm = z.infer<typeof newProjectFormSchema>;

export { roleOptions } from "./roles";

// Select values are strings; the action turns the chosen one into the access level.
export const addMemberFormSchema = z.object({
  username: z
    .string()
    .trim()
    .min(1, "Enter a username.")
    .transform((username) => username.replace(/^@/, "")),
  accessLevel: z.enum(["10", "20", "30", "40", "50"], "Choose a role."),
});
export type AddMemberForm = z.input<typeof addMemberFormSchema>;

/** A member's row in the members table: the role and the day the membership ends (empty: it does not). */
export const editMemberFormSchema = z.object({
  accessLevel: z.enum(["10", "20", "30", "40", "50"], "Choose a role."),
  expiresAt: z.string().regex(/^(\d{4}-\d{2}-\d{2})?$/, "Enter a date as YYYY-MM-DD."),
});
export type EditMemberForm = z.input<typeof editMemberFormSchema>;
