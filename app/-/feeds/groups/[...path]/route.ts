import { feedRoute } from "@/lib/events/feed-route";
import { groupActivityFeed } from "@/lib/events/feeds";

/** `/groups/<full path>.atom`, which proxy.ts rewrites here with the full path's segments (without `.atom`). */
export const GET = feedRoute<{ path: string[] }>((ctx, filters, { path }) => groupActivityFeed(ctx, path.join("/"), filters));
