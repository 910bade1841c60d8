import type { Metadata } from "next";
import { ActivityFeed } from "@/components/events/activity-feed";
import { requireSessionContext } from "@/lib/auth/session";
import { absoluteUrl, feedPaths } from "@/lib/events/feeds";

export function generateMetadata(): Metadata {
  return { title: "Activity", alternates: { types: { "application/atom+xml": absoluteUrl(feedPaths.dashboard) } } };
}

/** The signed-in user's own activity, or with “All projects” everything in the projects they belong to. */
export default async function DashboardActivityPage() {
  await requireSessionContext("/dashboard/activity");
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Activity</h1>
          <p className="muted">What you did, or everything in your projects.</p>
        </div>
      </div>
      <ActivityFeed endpoint="/api/v4/events" scopeToggle feed={{ path: feedPaths.dashboard, label: "Subscribe to activity feed" }} />
    </>
  );
}
