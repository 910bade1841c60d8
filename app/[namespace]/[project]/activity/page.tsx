import { ActivityFeed } from "@/components/events/activity-feed";
import { ProjectHeader } from "@/components/projects/project-header";
import { absoluteUrl, feedPaths } from "@/lib/events/feeds";
import { projectFullPath } from "@/lib/projects/serialize";
import { loadProjectPage, projectPageMetadata, type ProjectPageProps } from "../project-page";

export const generateMetadata = projectPageMetadata("Activity", (fullPath) => ({
  alternates: { types: { "application/atom+xml": absoluteUrl(feedPaths.project(fullPath)) } },
}));

export default async function ProjectActivityPage({ params }: ProjectPageProps) {
  const view = await loadProjectPage(params, "activity");
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
