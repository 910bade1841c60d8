import { z } from "zod";

/** The scopes a person can pick for their own token, with what each allows (GitLab's wording, shortened). */
export const selectablePersonalAccessTokenScopes = [
  { scope: "api", description: "Full read and write access to the API, including all projects." },
  { scope: "read_api", description: "Read access to the API, including all projects." },
  { scope: "read_user", description: "Read your own profile through the /user endpoint." },
  { scope: "read_repository", description: "Pull from repositories over Git-over-HTTP." },
  { scope: "write_repository", description: "Pull from and push to repositories over Git-over-HTTP." },
] as const;

/** Offered to administrators only, as GitLab offers its admin scopes. */
export const adminPersonalAccessTokenScopes = [
  { scope: "sudo", description: "Act through the API as any user, named by the sudo parameter or Sudo header." },
] as const;

type SelectableScope = (typeof selectablePersonalAccessTokenScopes)[number]["scope"] | (typeof adminPersonalAccessTokenScopes)[number]["scope"];
const selectableScopes = [...selectablePersonalAccessTokenScopes, ...adminPersonalAccessTokenScopes].map((entry) => entry.scope) as [
  SelectableScope,
  ...SelectableScope[],
];

export const personalAccessTokenFormSchema = z.object({
  name: z.string().trim().min(1, "Enter a name for the token.").max(255),
  scopes: z.array(z.enum(selectableScopes)).min(1, "Select at least one scope."),
  expiresAt: z
    .string()
    .regex(/^(\d{4}-\d{2}-\d{2})?$/, "Enter a date as YYYY-MM-DD.")
    .optional(),
});
export type PersonalAccessTokenForm = z.infer<typeof personalAccessTokenFormSchema>;

/** Profile → Notifications. */
export const notificationSettingsFormSchema = z.object({
  alertEmails: z.boolean(),
});
export type NotificationSettingsForm = z.infer<typeof notificationSettingsFormSchema>;
