import { feedRoute } from "@/lib/events/feed-route";
import { dashboardActivityFeed } from "@/lib/events/feeds";

/** `/dashboard/activity.atom?feed_token=…`: the reader's activity, filtered as the dashboard page's URL filters it. */
export const GET = feedRoute<Record<string, never>>((ctx, filters) => dashboardActivityFeed(ctx, filters));
