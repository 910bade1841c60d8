import { feedRoute } from "@/lib/events/feed-route";
import { userActivityFeed } from "@/lib/events/feeds";

/** `/<username>.atom`, which proxy.ts rewrites here (the user page's segment would take it otherwise). */
export const GET = feedRoute<{ username: string }>((ctx, filters, { username }) => userActivityFeed(ctx, username, filters));
