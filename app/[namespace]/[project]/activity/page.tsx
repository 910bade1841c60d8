import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ActivityFeed } from "@/components/events/activity-feed";
import { ProjectHeader } from "@/components/projects/project-header";
import { sessionContext } from "@/lib/auth/session";
import { NotFoundError } from "@/lib/errors";
import { absoluteUrl, feedPaths } from "@/lib/events/feeds";
import { getVisibleProject, type ProjectView } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";

interface ProjectActivityPageProps {
  params: Promise<{ namespace: string; project: string }>;
}

export async function generateMetadata({ params }: ProjectActivityPageProps): Promise<Metadata> {
  const { namespace, project } = await params;
  return { title: "Activity", alternates: { types: { "application/atom+xml": absoluteUrl(feedPaths.project(`${namespace}/${project}`)) } } };
}

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
