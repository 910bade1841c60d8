import "server-only";
import { env } from "@/lib/env";
import type { AlertRow } from "@/lib/db/schema";
import type { ProjectView } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";

/** The alert's page: `{base}/:namespace/:project/-/alert_management/:iid/details`, as GitLab links it. */
export function alertDetailsUrl(view: Pick<ProjectView, "project" | "namespace">, alert: Pick<AlertRow, "iid">): string {
  return `${env.EXTERNAL_URL}/${projectFullPath(view)}/-/alert_management/${alert.iid}/details`;
}
