import { z } from "zod";

/** The issue pages' forms; pure, so client components validate with the same rules the actions apply. */
export const newIssueFormSchema = z.object({
  title: z.string().trim().min(1, "Enter a title.").max(255, "Keep the title under 255 characters."),
  description: z.string().max(1_000_000).optional(),
  confidential: z.boolean().optional(),
});
export type NewIssueForm = z.input<typeof newIssueFormSchema>;

export const commentFormSchema = z.object({
  body: z.string().trim().min(1, "Write a comment first.").max(1_000_000),
  /** An internal note: only Reporters and above (and admins) see it. */
  internal: z.boolean().optional(),
});
export type CommentForm = z.input<typeof commentFormSchema>;
