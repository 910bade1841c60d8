import "server-only";
import type { OAuthApplicationRow } from "@/lib/db/schema";

/** GitLab's application entity; the secret only in the answers that create or renew it. */
export function serializeApplication(application: OAuthApplicationRow, secret?: string) {
  return {
    id: application.id,
    application_id: application.uid,
    application_name: application.name,
    callback_url: application.redirectUris.join("\n"),
    confidential: application.confidential,
    ...(secret !== undefined ? { secret } : {}),
  };
}
