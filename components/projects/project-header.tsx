import Link from "next/link";
import { NamespaceCrumbs } from "@/components/groups/namespace-crumbs";
import { can } from "@/lib/projects/policy";
import type { ProjectView } from "@/lib/projects/projects";

/**
 * The project's title, path, visibility and tabs; the Alerts, settings, Webhooks and Integrations tabs only for roles
 * that may open them.
 */
export function ProjectHeader({
  view,
  current,
}: {
  view: Pick<ProjectView, "project" | "namespace" | "accessLevel">;
  current: "overview" | "members" | "activity" | "issues" | "milestones" | "alerts" | "monitor-settings" | "webhooks" | "integrations";
}) {
  const { project, namespace } = view;
  const fullPath = `${namespace.fullPath}/${project.path}`;
  const name = project.name;
  const visibility = project.visibility;
  return (
    <>
      <div className="breadcrumbs">
        <NamespaceCrumbs namespace={namespace} /> / <Link href={`/${fullPath}`}>{name}</Link>
      </div>
      <div className="page-header">
        <div>
          <h1>{name}</h1>
          <p className="muted">
            <code>{fullPath}</code> · <span className="badge">{visibility}</span>
          </p>
        </div>
      </div>
      <nav className="tabs" aria-label="Project">
        <Link href={`/${fullPath}`} aria-current={current === "overview" ? "page" : undefined}>
          Overview
        </Link>
        <Link href={`/${fullPath}/-/project_members`} aria-current={current === "members" ? "page" : undefined}>
          Members
        </Link>
        <Link href={`/${fullPath}/-/issues`} aria-current={current === "issues" ? "page" : undefined}>
          Issues
        </Link>
        <Link href={`/${fullPath}/-/milestones`} aria-current={current === "milestones" ? "page" : undefined}>
          Milestones
        </Link>
        <Link href={`/${fullPath}/activity`} aria-current={current === "activity" ? "page" : undefined}>
          Activity
        </Link>
        {can(view, "readAlerts") ? (
          <Link href={`/${fullPath}/-/alert_management`} aria-current={current === "alerts" ? "page" : undefined}>
            Alerts
          </Link>
        ) : null}
        {can(view, "manageIntegrations") ? (
          <Link href={`/${fullPath}/-/settings/operations`} aria-current={current === "monitor-settings" ? "page" : undefined}>
            Monitor settings
          </Link>
        ) : null}
        {can(view, "manageWebhooks") ? (
          <Link href={`/${fullPath}/-/hooks`} aria-current={current === "webhooks" ? "page" : undefined}>
            Webhooks
          </Link>
        ) : null}
        {can(view, "manageIntegrations") ? (
          <Link href={`/${fullPath}/-/settings/integrations`} aria-current={current === "integrations" ? "page" : undefined}>
            Integrations
          </Link>
        ) : null}
      </nav>
    </>
  );
}
