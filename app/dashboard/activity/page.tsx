import type { Metadata } from "next";
import { ActivityFeed } from "@/components/events/activity-feed";
import { requireSessionContext } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Activity" };

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
      <ActivityFeed endpoint="/api/v4/events" scopeToggle />
    </>
  );
}
