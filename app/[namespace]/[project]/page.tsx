import type { Metadata } from "next";
import Link from "next/link";
import { ProjectHeader } from "@/components/projects/project-header";
import { CopyField } from "@/components/ui/copy-field";
import { DateText } from "@/components/ui/date-text";
import { accessLevelNames } from "@/lib/projects/access";
import { can } from "@/lib/projects/policy";
import { projectFullPath, projectWebUrl } from "@/lib/projects/serialize";
import { loadProjectPage, type ProjectPageProps } from "./project-page";

export async function generateMetadata({ params }: ProjectPageProps): Promise<Metadata> {
  const view = await loadProjectPage(params);
  return { title: view.project.name };
}

export default async function ProjectPage({ params }: ProjectPageProps) {
  const view = await loadProjectPage(params);
  const { project, namespace, accessLevel } = view;
  const fullPath = projectFullPath(view);
  return (
    <>
      <ProjectHeader view={{ project, namespace, accessLevel }} current="overview" />
      {project.description ? <p>{project.description}</p> : <p className="muted">No description.</p>}
      <dl className="details section">
        <dt>Path</dt>
        <dd>
          <code>{fullPath}</code>
        </dd>
        <dt>Visibility</dt>
        <dd>{project.visibility}</dd>
        <dt>Created</dt>
        <dd>
          <DateText value={project.createdAt} />
        </dd>
        <dt>Your role</dt>
        <dd>{accessLevel === null ? "Not a member" : accessLevelNames[accessLevel]}</dd>
        <dt>Members</dt>
        <dd>
          <Link href={`/${fullPath}/-/project_members`}>View members</Link>
        </dd>
        {can(view, "readAlerts") ? (
          <>
            <dt>Alerts</dt>
            <dd>
              <Link href={`/${fullPath}/-/alert_management`}>View alerts</Link>
              {can(view, "manageIntegrations") ? (
                <>
                  {" · "}
                  <Link href={`/${fullPath}/-/settings/operations`}>Alert integrations and settings</Link>
                </>
              ) : null}
            </dd>
          </>
        ) : null}
      </dl>
      <section aria-labelledby="clone-heading">
        <h2 id="clone-heading">Clone</h2>
        <CopyField label="Clone with HTTP" value={`${projectWebUrl(view)}.git`} />
      </section>
    </>
  );
}
