import { z } from "zod";
import { knownScopes } from "@/lib/api/scopes";
import { scopeDescriptions } from "./scopes";

/** Forms of the applications and device pages; pure, shared by the client forms and the server actions. */

/** The scopes an application may ask for, with the words the consent screen uses. */
export const selectableApplicationScopes = knownScopes.map((scope) => ({ scope, ...scopeDescriptions[scope] }));

export const applicationFormSchema = z.object({
  name: z.string().trim().min(1, "Enter a name for the application.").max(255, "Name is too long (maximum is 255 characters)."),
  redirectUri: z.string().trim().min(1, "Enter at least one redirect URI.").max(10_000),
  confidential: z.boolean(),
  scopes: z.array(z.enum(knownScopes)).min(1, "Select at least one scope."),
});
export type ApplicationForm = z.infer<typeof applicationFormSchema>;

export const deviceDecisionSchema = z.object({
  user_code: z.string().trim().min(1).max(32),
  decision: z.enum(["approve", "deny"]),
});
