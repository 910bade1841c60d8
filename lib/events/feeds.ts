import "server-only";
import { eq, inArray, sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { namespaces, projects } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { getVisibleGroupByFullPath } from "@/lib/groups/groups";
import { getVisibleProject } from "@/lib/projects/projects";
import { projectFullPath } from "@/lib/projects/serialize";
import { getUserByUsername } from "@/lib/users/users";
import type { FeedEvent, FeedFilters } from "./describe";
import { eventEntry, type AtomFeed } from "./atom";
import { listEventsOfGroup, listOwnEvents, listProjectEvents, listUserEvents, type EventFilters, type EventList } from "./query";

/** GitLab's feeds show the latest twenty events. */
const feedLength = 20;

/** Where each page's Atom feed lives; the feed token, when there is one, goes in its `feed_token` parameter. */
export const feedPaths = {
  dashboard: "/dashboard/activity.atom",
  user: (username: string) => `/${username}.atom`,
  project: (fullPath: string) => `/${fullPath}/activity.atom`,
  group: (fullPath: string) => `/groups/${fullPath}.atom`,
};

export function absoluteUrl(path: string): string {
  return `${env.EXTERNAL_URL}${path}`;
}

/** The dashboard feed's address with the feed token in it, as a feed reader subscribes to it. */
export function dashboardFeedUrl(feedToken: string): string {
  return absoluteUrl(`${feedPaths.dashboard}?feed_token=${encodeURIComponent(feedToken)}`);
}

function eventFilters(filters: Pick<FeedFilters, "action" | "targetType">): EventFilters {
  return { action: filters.action || undefined, targetType: filters.targetType || undefined, sort: "desc" };
}

const latestEvents = { kind: "keyset", perPage: feedLength } as const;

/** The full paths of the projects of events the reader was allowed to see, so every entry can name its project. */
async function projectPaths(ctx: Ctx, events: FeedEvent[]): Promise<Map<number, string>> {
  const ids = [...new Set(events.flatMap((event) => (event.project_id === null ? [] : [event.project_id])))];
  if (ids.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: projects.id, fullPath: sql<string>`${namespaces.fullPath} || '/' || ${projects.path}` })
    .from(projects)
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(inArray(projects.id, ids));
  return new Map(rows.map((row) => [row.id, row.fullPath]));
}

async function atomFeed(ctx: Ctx, feed: { path: string; title: string; alternatePath: string }, list: EventList): Promise<AtomFeed> {
  const events = list.items.map((item) => JSON.parse(item.json) as FeedEvent);
  const paths = await projectPaths(ctx, events);
  return {
    id: absoluteUrl(feed.path),
    title: feed.title,
    alternateUrl: absoluteUrl(feed.alternatePath),
    updated: events[0]?.created_at ?? ctx.now.toISOString(),
    entries: events.map((event) => eventEntry(event, paths.get(event.project_id ?? 0) ?? `project ${event.project_id}`, env.EXTERNAL_URL)),
  };
}

/** `/dashboard/activity.atom`: the reader's own activity, or with `scope=all` everything in their projects. */
export async function dashboardActivityFeed(ctx: Ctx, filters: FeedFilters): Promise<AtomFeed> {
  const list = await listOwnEvents(ctx, filters.scopeAll, eventFilters(filters), latestEvents);
  return atomFeed(ctx, { path: feedPaths.dashboard, title: "Activity", alternatePath: "/dashboard/activity" }, list);
}

/** `/<username>.atom`: what the user did, as far as the reader may see. */
export async function userActivityFeed(ctx: Ctx, username: string, filters: FeedFilters): Promise<AtomFeed> {
  const user = await getUserByUsername(ctx, username);
  const list = await listUserEvents(ctx, String(user.id), eventFilters(filters), latestEvents);
  return atomFeed(ctx, { path: feedPaths.user(user.username), title: `${user.name} activity`, alternatePath: `/${user.username}` }, list);
}

/** `/<namespace>/<project>/activity.atom`: the project's activity; 404 for a project the reader cannot see. */
export async function projectActivityFeed(ctx: Ctx, reference: string, filters: FeedFilters): Promise<AtomFeed> {
  const view = await getVisibleProject(ctx, reference);
  const fullPath = projectFullPath(view);
  const list = await listProjectEvents(ctx, String(view.project.id), eventFilters(filters), latestEvents);
  return atomFeed(ctx, { path: feedPaths.project(fullPath), title: `${view.project.name} activity`, alternatePath: `/${fullPath}/activity` }, list);
}

/**
 * `/groups/<full path>.atom`: the activity of the group, its subgroups and their projects, as far as the reader may
 * see; 404 for a group the reader cannot see (`GroupMovedError` for a path it had before a rename or a move).
 */
export async function groupActivityFeed(ctx: Ctx, fullPath: string, filters: FeedFilters): Promise<AtomFeed> {
  const { group, fullName } = await getVisibleGroupByFullPath(ctx, fullPath);
  const list = await listEventsOfGroup(ctx, group, eventFilters(filters), latestEvents);
  return atomFeed(ctx, { path: feedPaths.group(group.fullPath), title: `${fullName} activity`, alternatePath: `/groups/${group.fullPath}/-/activity` }, list);
}
