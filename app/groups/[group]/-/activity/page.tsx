import { ActivityFeed } from "@/components/events/activity-feed";
import { GroupHeader } from "@/components/groups/group-header";
import { absoluteUrl, feedPaths } from "@/lib/events/feeds";
import { groupPagePath } from "@/lib/groups/paths";
import { groupPageMetadata, loadGroupPage, type GroupPageProps } from "../../group-page";

export const generateMetadata = groupPageMetadata("Activity", (fullPath) => ({
  alternates: { types: { "application/atom+xml": absoluteUrl(feedPaths.group(fullPath)) } },
}));

/** What happened in the group, its subgroups and their projects, as far as the visitor may see. */
export default async function GroupActivityPage({ params }: GroupPageProps) {
  const view = await loadGroupPage(params, "activity");
  const fullPath = view.group.fullPath;
  return (
    <>
      <GroupHeader view={view} current="activity" />
      <ActivityFeed endpoint={`${groupPagePath(fullPath, "activity")}.json`} feed={{ path: feedPaths.group(fullPath), label: "Subscribe" }} />
    </>
  );
}
