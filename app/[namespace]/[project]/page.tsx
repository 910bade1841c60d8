import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { ProjectHeader } from "@/components/projects/project-header";
import { CopyField } from "@/components/ui/copy-field";
import { DateText } from "@/components/ui/date-text";
import { sessionContext } from "@/lib/auth/session";
import { NotFoundError } from "@/lib/errors";
import { accessLevelNames } from "@/lib/projects/access";
import { can } from "@/lib/projects/policy";
import { getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { projectFullPath, projectWebUrl } from "@/lib/projects/serialize";

interface ProjectPageProps {
  params: Promise<{ namespace: string; project: string }>;
}

/**
 * The project, or the 404 page: private projects look exactly like missing ones to those who cannot see them.
 * Cached per request because the metadata and the page both need it.
 */
const findProject = cache(async (namespace: string, project: string): Promise<ProjectView> => {
  try {
    return await getVisibleProject(await sessionContext(), `${namespace}/${project}`);
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
});

async function loadProject(params: ProjectPageProps["params"]): Promise<ProjectView> {
  const { namespace, project } = await params;
  return findProject(namespace, project);
}

export async function generateMetadata({ params }: ProjectPageProps): Promise<Metadata> {
  const view = await loadProject(params);
  return { title: view.project.name };
}

export default async function ProjectPage({ params }: ProjectPageProps) {
  const view = await loadProject(params);
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
