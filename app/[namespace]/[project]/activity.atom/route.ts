import { feedRoute } from "@/lib/events/feed-route";
import { projectActivityFeed } from "@/lib/events/feeds";

/** `/<namespace>/<project>/activity.atom`: private projects need the feed token of someone who may see them. */
export const GET = feedRoute<{ namespace: string; project: string }>((ctx, filters, { namespace, project }) =>
  projectActivityFeed(ctx, `${namespace}/${project}`, filters),
);
