import "server-only";
import { z } from "zod";
import { entity } from "@/lib/api/entities";
import type { OAuthApplicationRow } from "@/lib/db/schema";

const applicationShape = {
  id: z.number().int(),
  application_id: z.string(),
  application_name: z.string(),
  callback_url: z.string(),
  confidential: z.boolean(),
  /** Only in the answers that create or renew it. */
  secret: z.string().optional(),
};

export const applicationEntity = entity("Application", "An OAuth application; its secret only when created or renewed", z.strictObject(applicationShape));

/** What `PUT /applications/:id` answers: the application and its settings for trust and the implicit grant. */
export const applicationWithSettingsEntity = entity(
  "ApplicationWithSettings",
  "An OAuth application with the settings an admin changes",
  z.strictObject({ ...applicationShape, trusted: z.boolean(), implicit_grant_enabled: z.boolean() }),
);

/** GitLab's application entity; the secret only in the answers that create or renew it. */
export function serializeApplication(application: OAuthApplicationRow, secret?: string): z.infer<typeof applicationEntity> {
  return {
    id: application.id,
    application_id: application.uid,
    application_name: application.name,
    callback_url: application.redirectUris.join("\n"),
    confidential: application.confidential,
    ...(secret !== undefined ? { secret } : {}),
  };
}
