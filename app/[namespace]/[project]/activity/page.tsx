import { notFound } from "next/navigation";
import { ActivityFeed } from "@/components/events/activity-feed";
import { ProjectHeader } from "@/components/projects/project-header";
import { sessionContext } from "@/lib/auth/session";
import { NotFoundError } from "@/lib/errors";
import { getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";
import { projectPageMetadata } from "../project-metadata";

export const generateMetadata = projectPageMetadata("Activity");

export default async function ProjectActivityPage({ params }: { params: Promise<{ namespace: string; project: string }> }) {
  const { namespace, project } = await params;
  let view: ProjectView;
  try {
    view = await getVisibleProject(await sessionContext(), `${namespace}/${project}`);
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
  const fullPath = projectFullPath(view);
  return (
    <>
      <ProjectHeader view={view} current="activity" />
      <ActivityFeed endpoint={`/api/v4/projects/${view.project.id}/events`} project={{ id: view.project.id, fullPath }} />
    </>
  );
}
