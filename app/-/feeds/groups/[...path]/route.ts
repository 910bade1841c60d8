import { feedRoute } from "@/lib/events/feed-route";
import { feedPaths, groupActivityFeed } from "@/lib/events/feeds";

/**
 * `/groups/<full path>.atom`, which proxy.ts rewrites here with the full path's segments (without `.atom`). A path the
 * group had before a rename or a move redirects to its feed.
 */
export const GET = feedRoute<{ path: string[] }>((ctx, filters, { path }) => groupActivityFeed(ctx, path.join("/"), filters), {
  movedFeed: feedPaths.group,
});
