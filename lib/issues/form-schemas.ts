import { z } from "zod";
import { longerThan } from "@/lib/text-rules";
import { maxDescriptionLength, maxNoteLength, maxTitleLength } from "./text-limits";

/** The issue pages' forms; pure, so client components validate with the same rules the actions apply. */
export const newIssueFormSchema = z.object({
  title: z
    .string()
    .trim()
    .min(1, "Enter a title.")
    .refine((title) => !longerThan(title, maxTitleLength), `Title is too long (maximum is ${maxTitleLength} characters).`),
  description: z
    .string()
    .refine((description) => !longerThan(description, maxDescriptionLength), `Description is too long (maximum is ${maxDescriptionLength} characters).`)
    .optional(),
  confidential: z.boolean().optional(),
});
export type NewIssueForm = z.input<typeof newIssueFormSchema>;

export const commentFormSchema = z.object({
  body: z
    .string()
    .trim()
    .min(1, "Write a comment first.")
    .refine((body) => !longerThan(body, maxNoteLength), `Comment is too long (maximum is ${maxNoteLength} characters).`),
  /** An internal note: only Reporters and above (and admins) see it. */
  internal: z.boolean().optional(),
});
export type CommentForm = z.input<typeof commentFormSchema>;
