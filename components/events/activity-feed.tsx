"use client";

import { QueryClient, QueryClientProvider, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { Suspense, useCallback, useEffect, useRef, useState } from "react";
import {
  actionChips,
  describeEvent,
  feedFilterParams,
  feedFiltersFrom,
  nextCursorFromLink,
  targetTypeChips,
  type FeedEvent,
  type FeedFilters,
} from "@/lib/events/describe";
import { relativeTimeText } from "@/lib/time/relative";

export interface ActivityFeedProps {
  /**
   * The list to show, in the Events API's JSON: `/api/v4/events`, `/api/v4/users/:id/events`,
   * `/api/v4/projects/:id/events`, or a group's activity (whose group events name their group).
   */
  endpoint: string;
  /** Offer the “all projects” switch (`scope=all`, only on `/api/v4/events`). */
  scopeToggle?: boolean;
  /** The project every event belongs to, when the feed is a project's. */
  project?: { id: number; fullPath: string };
  perPage?: number;
  /** The page's Atom feed, offered with the feed's filters set as the page's are. */
  feed?: { path: string; label: string };
}

/** How often an open feed asks whether anything happened (it also asks whenever the window regains focus). */
const pollIntervalMs = 30_000;

/** An activity feed with its own query cache, so any page can drop it in. */
export function ActivityFeed(props: ActivityFeedProps) {
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 30_000, retry: 1 } } }));
  return (
    <QueryClientProvider client={client}>
      <Suspense fallback={<p className="muted">Loading activity…</p>}>
        <Feed {...props} />
      </Suspense>
    </QueryClientProvider>
  );
}

interface FeedPage {
  events: FeedEvent[];
  next: string | null;
  etag: string | null;
}

async function fetchJson<T>(url: string): Promise<{ body: T; link: string | null; etag: string | null }> {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`The server answered ${response.status}`);
  return { body: (await response.json()) as T, link: response.headers.get("link"), etag: response.headers.get("etag") };
}

const filterKeys = ["action", "target_type", "scope"];

/**
 * The filters live in the page's URL. Changing them pushes a history entry without a server round trip (the framework
 * keeps `useSearchParams` in step with `history.pushState`), so Back, Forward, reload and shared links keep them.
 */
function useUrlFilters(scopeToggle: boolean): [FeedFilters, (change: Partial<FeedFilters>) => void] {
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const filters = feedFiltersFrom(new URLSearchParams(searchParams.toString()));
  if (!scopeToggle) filters.scopeAll = false;
  const setFilters = (change: Partial<FeedFilters>) => {
    const params = new URLSearchParams(searchParams.toString());
    for (const key of filterKeys) params.delete(key);
    for (const [key, value] of feedFilterParams({ ...filters, ...change })) params.set(key, value);
    const query = params.toString();
    window.history.pushState(null, "", query ? `${pathname}?${query}` : pathname);
  };
  return [filters, setFilters];
}

function Feed({ endpoint, scopeToggle = false, project, perPage = 20, feed }: ActivityFeedProps) {
  const [filters, setFilters] = useUrlFilters(scopeToggle);
  const feedQuery = feedFilterParams(filters).toString();
  const query = feedFilterParams(filters);
  query.set("pagination", "keyset");
  query.set("per_page", String(perPage));
  const firstPageUrl = `${endpoint}?${query.toString()}`;
  return (
    <div className="activity">
      {feed ? (
        <p className="feed-links">
          <a href={feedQuery ? `${feed.path}?${feedQuery}` : feed.path} type="application/atom+xml">
            {feed.label}
          </a>
        </p>
      ) : null}
      {scopeToggle ? (
        <div className="chips" role="group" aria-label="Scope">
          <button type="button" className="chip" aria-pressed={!filters.scopeAll} onClick={() => setFilters({ scopeAll: false })}>
            Your activity
          </button>
          <button type="button" className="chip" aria-pressed={filters.scopeAll} onClick={() => setFilters({ scopeAll: true })}>
            All projects
          </button>
        </div>
      ) : null}
      <ChipGroup label="Action" chips={actionChips} selected={filters.action} select={(action) => setFilters({ action })} />
      <ChipGroup label="Target type" chips={targetTypeChips} selected={filters.targetType} select={(targetType) => setFilters({ targetType })} />
      {/* A new list for other filters, so events loaded on top under the old ones do not linger. */}
      <EventList key={firstPageUrl} firstPageUrl={firstPageUrl} project={project} />
    </div>
  );
}

function ChipGroup<T extends string>(props: { label: string; chips: readonly { value: T; label: string }[]; selected: T; select: (value: T) => void }) {
  return (
    <div className="chips" role="group" aria-label={props.label}>
      {props.chips.map((chip) => (
        <button key={chip.value} type="button" className="chip" aria-pressed={props.selected === chip.value} onClick={() => props.select(chip.value)}>
          {chip.label}
        </button>
      ))}
    </div>
  );
}

/**
 * The first page again, asked with the ETag of the last answer: 304 (nothing changed) costs the server no rendering.
 * Answers the events newer than `newestId` that the page does not show yet.
 */
function useNewEvents(firstPageUrl: string, initialEtag: string | null | undefined, newestId: number | null): FeedEvent[] {
  const [latest, setLatest] = useState<FeedEvent[]>([]);
  const etag = useRef<string | null>(null);
  useEffect(() => {
    if (initialEtag !== undefined && etag.current === null) etag.current = initialEtag;
  }, [initialEtag]);
  const ready = initialEtag !== undefined;
  const poll = useCallback(async () => {
    if (document.visibilityState === "hidden") return;
    const headers: Record<string, string> = { Accept: "application/json" };
    if (etag.current) headers["If-None-Match"] = etag.current;
    try {
      const response = await fetch(firstPageUrl, { credentials: "same-origin", cache: "no-store", headers });
      if (response.status !== 200) return;
      etag.current = response.headers.get("etag");
      setLatest((await response.json()) as FeedEvent[]);
    } catch {
      // Offline for a moment: the next poll asks again.
    }
  }, [firstPageUrl]);
  useEffect(() => {
    if (!ready) return;
    const ask = () => void poll();
    const timer = setInterval(ask, pollIntervalMs);
    window.addEventListener("focus", ask);
    return () => {
      clearInterval(timer);
      window.removeEventListener("focus", ask);
    };
  }, [ready, poll]);
  return latest.filter((event) => event.id > (newestId ?? 0));
}

function EventList({ firstPageUrl, project }: { firstPageUrl: string; project?: { id: number; fullPath: string } }) {
  const feed = useInfiniteQuery({
    queryKey: ["events", firstPageUrl],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }): Promise<FeedPage> => {
      const { body, link, etag } = await fetchJson<FeedEvent[]>(pageParam ? `${firstPageUrl}&id_before=${pageParam}` : firstPageUrl);
      return { events: body, next: nextCursorFromLink(link), etag };
    },
    getNextPageParam: (last) => last.next,
    // New events come through the “new events” button, never by reshuffling what the reader is looking at.
    refetchOnWindowFocus: false,
  });

  const sentinel = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = feed;
  useEffect(() => {
    const element = sentinel.current;
    if (!element || !hasNextPage) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
      },
      { rootMargin: "200px" },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  // Events the reader chose to load on top with the “new events” button, newest first.
  const [loadedOnTop, setLoadedOnTop] = useState<FeedEvent[]>([]);
  const events = [...loadedOnTop, ...(feed.data?.pages.flatMap((page) => page.events) ?? [])];
  const newestId = events.reduce<number | null>((newest, event) => Math.max(newest ?? 0, event.id), null);
  const newEvents = useNewEvents(firstPageUrl, feed.data?.pages[0]?.etag, newestId);
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);

  return (
    <>
      <div aria-live="polite">
        {newEvents.length > 0 ? (
          <button type="button" className="button button-secondary new-events" onClick={() => setLoadedOnTop((shown) => [...newEvents, ...shown])}>
            {newEvents.length} new {newEvents.length === 1 ? "event" : "events"}
          </button>
        ) : null}
      </div>
      {feed.isPending ? <p className="muted">Loading activity…</p> : null}
      {feed.isError ? <p className="notice notice-error">Could not load activity: {feed.error.message}</p> : null}
      {feed.isSuccess && events.length === 0 ? <p className="empty">No activity to show.</p> : null}
      {events.length > 0 ? (
        <ol className="event-list" aria-label="Activity">
          {events.map((event) => (
            <EventRow key={event.id} event={event} project={project} now={now} />
          ))}
        </ol>
      ) : null}
      <div ref={sentinel} aria-hidden="true" />
      {hasNextPage ? (
        <button type="button" className="button button-secondary" disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
          {isFetchingNextPage ? "Loading more…" : "Load more"}
        </button>
      ) : feed.isSuccess && events.length > 0 ? (
        <p className="muted">End of activity.</p>
      ) : null}
    </>
  );
}

/** The project's full path, for feeds that mix projects; one request per project, shared across rows. */
function useProjectPath(projectId: number | null, known?: { id: number; fullPath: string }): string | null {
  const lookup = useQuery({
    queryKey: ["project-path", projectId],
    enabled: projectId !== null && known?.id !== projectId,
    staleTime: Infinity,
    queryFn: async () => (await fetchJson<{ path_with_namespace: string }>(`/api/v4/projects/${projectId}`)).body.path_with_namespace,
  });
  if (known && known.id === projectId) return known.fullPath;
  return lookup.data ?? null;
}

function EventRow({ event, project, now }: { event: FeedEvent; project?: { id: number; fullPath: string }; now: Date }) {
  const projectPath = useProjectPath(event.project_id, project);
  const sentence = describeEvent(event, projectPath);
  const projectLink = projectPath ? <Link href={`/${projectPath}`}>{projectPath}</Link> : <span className="muted">project {event.project_id}</span>;
  return (
    <li className="event-row" data-event-id={event.id}>
      <div className="event-line">
        <span className="event-text">
          <Link href={`/${event.author.username}`} className="event-author">
            {event.author.name}
          </Link>{" "}
          {sentence.phrases.map((phrase, index) => (
            <span key={index}>
              {phrase.href ? <Link href={phrase.href}>{phrase.text}</Link> : phrase.code ? <code>{phrase.text}</code> : phrase.text}{" "}
            </span>
          ))}
          {sentence.group ? (
            <>
              group <Link href={sentence.group.href}>{sentence.group.fullName}</Link>
            </>
          ) : sentence.projectWording === "project" ? (
            <>project {projectLink}</>
          ) : (
            <>at {projectLink}</>
          )}
        </span>
        <time className="event-time muted" dateTime={event.created_at} title={new Date(event.created_at).toUTCString()}>
          {relativeTimeText(event.created_at, now)}
        </time>
      </div>
      {sentence.detail ? <div className="event-detail muted">{sentence.detail}</div> : null}
    </li>
  );
}
