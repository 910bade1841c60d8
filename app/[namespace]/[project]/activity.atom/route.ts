import { feedRoute } from "@/lib/events/feed-route";
import { feedPaths, projectActivityFeed } from "@/lib/events/feeds";

/**
 * `/<namespace>/<project>/activity.atom`: private projects need the feed token of someone who may see them. A path the
 * project had before a rename redirects to its feed.
 */
export const GET = feedRoute<{ namespace: string; project: string }>(
  (ctx, filters, { namespace, project }) => projectActivityFeed(ctx, `${namespace}/${project}`, filters),
  { movedProjectFeed: feedPaths.project },
);
