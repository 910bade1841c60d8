import { notFound } from "next/navigation";
import { ActivityFeed } from "@/components/events/activity-feed";
import { ProjectHeader } from "@/components/projects/project-header";
import { sessionContext } from "@/lib/auth/session";
import { NotFoundError } from "@/lib/errors";
import { absoluteUrl, feedPaths } from "@/lib/events/feeds";
import { getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";
import { projectPageMetadata } from "../project-metadata";

interface ProjectActivityPageProps {
  params: Promise<{ namespace: string; project: string }>;
}

export const generateMetadata = projectPageMetadata("Activity", (fullPath) => ({
  alternates: { types: { "application/atom+xml": absoluteUrl(feedPaths.project(fullPath)) } },
}));

export default async function ProjectActivityPage({ params }: ProjectActivityPageProps) {
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
      <ActivityFeed
        endpoint={`/api/v4/projects/${view.project.id}/events`}
        project={{ id: view.project.id, fullPath }}
        feed={{ path: feedPaths.project(fullPath), label: "Subscribe" }}
      />
    </>
  );
}
