import { z } from "zod";

/** Admin area › Settings: what the form edits, checked alike in the browser and by the server action. */
export const instanceSettingsFormSchema = z.object({
  /** RFC 9207's `iss` in authorization responses, advertised by discovery. */
  oauthAuthorizationResponseIss: z.boolean(),
  /** Outbound requests from webhooks and integrations may reach the local network (`lib/http/outbound.ts`). */
  allowLocalRequestsFromWebHooksAndServices: z.boolean(),
  /** Users who are not admins may create top-level groups (GitLab's `can_create_group`). */
  canCreateGroup: z.boolean(),
});

export type InstanceSettingsForm = z.infer<typeof instanceSettingsFormSchema>;
