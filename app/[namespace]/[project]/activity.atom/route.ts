import { feedRoute } from "@/lib/events/feed-route";
import { feedPaths, projectActivityFeed } from "@/lib/events/feeds";
import { routeProjectPath } from "@/lib/projects/route-path";

/**
 * `/<namespace>/<project>/activity.atom`: private projects need the feed token of someone who may see them. A path the
 * project had before a rename redirects to its feed.
 */
export const GET = feedRoute<{ namespace: string; project: string }>(
  (ctx, filters, { namespace, project }) => projectActivityFeed(ctx, routeProjectPath({ namespace, project }), filters),
  { movedFeed: feedPaths.project },
);
