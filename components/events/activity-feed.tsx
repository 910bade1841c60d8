"use client";

import { QueryClient, QueryClientProvider, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import {
  actionChips,
  describeEvent,
  nextCursorFromLink,
  targetTypeChips,
  type FeedEvent,
} from "@/lib/events/describe";
import { relativeTimeText } from "@/lib/time/relative";

export interface ActivityFeedProps {
  /** The Events API list to show: `/api/v4/events`, `/api/v4/users/:id/events` or `/api/v4/projects/:id/events`. */
  endpoint: string;
  /** Offer the “all projects” switch (`scope=all`, only on `/api/v4/events`). */
  scopeToggle?: boolean;
  /** The project every event belongs to, when the feed is a project's. */
  project?: { id: number; fullPath: string };
  perPage?: number;
}

/** An activity feed with its own query cache, so any page can drop it in. */
export function ActivityFeed(props: ActivityFeedProps) {
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 30_000, retry: 1 } } }));
  return (
    <QueryClientProvider client={client}>
      <Feed {...props} />
    </QueryClientProvider>
  );
}

interface FeedPage {
  events: FeedEvent[];
  next: string | null;
}

async function fetchJson<T>(url: string): Promise<{ body: T; link: string | null }> {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`The server answered ${response.status}`);
  return { body: (await response.json()) as T, link: response.headers.get("link") };
}

function Feed({ endpoint, scopeToggle, project, perPage = 20 }: ActivityFeedProps) {
  const [action, setAction] = useState("");
  const [targetType, setTargetType] = useState("");
  const [scopeAll, setScopeAll] = useState(false);
  const feed = useInfiniteQuery({
    queryKey: ["events", endpoint, action, targetType, scopeAll, perPage],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }): Promise<FeedPage> => {
      const params = new URLSearchParams({ pagination: "keyset", per_page: String(perPage) });
      if (action) params.set("action", action);
      if (targetType) params.set("target_type", targetType);
      if (scopeAll) params.set("scope", "all");
      if (pageParam) params.set("id_before", pageParam);
      const { body, link } = await fetchJson<FeedEvent[]>(`${endpoint}?${params.toString()}`);
      return { events: body, next: nextCursorFromLink(link) };
    },
    getNextPageParam: (last) => last.next,
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

  const events = feed.data?.pages.flatMap((page) => page.events) ?? [];
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);

  return (
    <div className="activity">
      {scopeToggle ? (
        <div className="chips" role="group" aria-label="Scope">
          <button type="button" className="chip" aria-pressed={!scopeAll} onClick={() => setScopeAll(false)}>
            Your activity
          </button>
          <button type="button" className="chip" aria-pressed={scopeAll} onClick={() => setScopeAll(true)}>
            All projects
          </button>
        </div>
      ) : null}
      <div className="chips" role="group" aria-label="Action">
        {actionChips.map((chip) => (
          <button key={chip.value} type="button" className="chip" aria-pressed={action === chip.value} onClick={() => setAction(chip.value)}>
            {chip.label}
          </button>
        ))}
      </div>
      <div className="chips" role="group" aria-label="Target type">
        {targetTypeChips.map((chip) => (
          <button key={chip.value} type="button" className="chip" aria-pressed={targetType === chip.value} onClick={() => setTargetType(chip.value)}>
            {chip.label}
          </button>
        ))}
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
    </div>
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
          {sentence.projectWording === "project" ? <>project {projectLink}</> : <>at {projectLink}</>}
        </span>
        <time className="event-time muted" dateTime={event.created_at} title={new Date(event.created_at).toUTCString()}>
          {relativeTimeText(event.created_at, now)}
        </time>
      </div>
      {sentence.detail ? <div className="event-detail muted">{sentence.detail}</div> : null}
    </li>
  );
}
