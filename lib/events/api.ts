import "server-only";
import { createHash } from "node:crypto";
import { z } from "zod";
import { keysetHeaders, maxPerPage, pageRequest, paginationHeaders, type PageRequest } from "@/lib/api/pagination";
import { dateParam, eventIdParam, paginationParams } from "@/lib/api/param-types";
import type { Answer } from "@/lib/http/answer";
import { eventActions, eventTargetTypeFilters, type EventFilters, type EventList, type EventPage } from "./query";

const targetTypeFilterNames = Object.keys(eventTargetTypeFilters) as [keyof typeof eventTargetTypeFilters, ...(keyof typeof eventTargetTypeFilters)[]];

export interface EventQuery {
  filters: EventFilters;
  page: EventPage;
  scopeAll: boolean;
}

/** The Events API's parameters, as GitLab declares them. */
export const eventQueryParams = {
  action: z.enum(eventActions).optional(),
  target_type: z.enum(targetTypeFilterNames).optional(),
  before: dateParam.optional(),
  after: dateParam.optional(),
  sort: z.enum(["asc", "desc"]).optional(),
  pagination: z.enum(["offset", "keyset"]).optional(),
  id_before: eventIdParam.optional(),
  id_after: eventIdParam.optional(),
  order_by: z.enum(["id", "created_at"]).optional(),
  ...paginationParams,
};

/** `scope` exists only on `/events`. */
export const ownEventQueryParams = { ...eventQueryParams, scope: z.string().optional() };

/** The filters and page the parsed parameters ask for. */
export function eventQueryOf(params: z.infer<z.ZodObject<typeof eventQueryParams>> & { scope?: string }): EventQuery {
  const filters: EventFilters = {
    action: params.action,
    targetType: params.target_type,
    before: params.before,
    after: params.after,
    sort: params.sort ?? "desc",
  };
  const keyset = params.pagination === "keyset";
  // Offset pages cost more the deeper they go; past GitLab's offset limit, keyset pages (which do not) are the way on.
  const offset = pageRequest(params, { keysetType: keyset ? undefined : "Event" });
  const page: EventPage = keyset
    ? { kind: "keyset", perPage: offset.perPage, idBefore: params.id_before, idAfter: params.id_after }
    : { kind: "offset", page: offset };
  return { filters, page, scopeAll: params.scope === "all" };
}

/** The cursor of the next keyset page: past the page's last event, in the page's order; null on the last page. */
function nextCursor(list: EventList, query: EventQuery): Record<string, string | null> | null {
  const last = list.items.at(-1);
  if (!list.hasMore || !last) return null;
  const ascending = query.filters.sort === "asc";
  return { id_before: ascending ? null : String(last.id), id_after: ascending ? String(last.id) : null };
}

/**
 * Where an offset page's `rel="next"` leads when the next offset page would reach past the list's offset limit: the
 * keyset page after this one (it walks on from the page's last event, in the same order), so a client that follows
 * links pages to the end.
 */
function keysetContinuation(list: EventList, query: EventQuery, { page, perPage }: PageRequest): Record<string, string | null> | undefined {
  const cursor = (page + 1) * perPage > list.offsetReach ? nextCursor(list, query) : null;
  return cursor ? { pagination: "keyset", ...cursor } : undefined;
}

/**
 * The list as JSON with GitLab's pagination headers (offset) or a `rel="next"` link (keyset), and an ETag so pollers
 * can ask `If-None-Match` and get 304 when nothing changed.
 */
export function eventsAnswer(request: Request, url: URL, list: EventList, query: EventQuery): Answer {
  const body = `[${list.items.map((item) => item.json).join(",")}]`;
  const etag = `W/"${createHash("sha1").update(`${list.total ?? ""}:${body}`).digest("base64url")}"`;
  const headers: Record<string, string> = { ETag: etag, Vary: "Authorization, PRIVATE-TOKEN, Cookie" };
  if (query.page.kind === "offset") {
    const continueAt = keysetContinuation(list, query, query.page.page);
    Object.assign(headers, paginationHeaders(url, query.page.page, { total: list.total, hasNext: list.hasMore }, continueAt));
  } else {
    Object.assign(headers, keysetHeaders(url, Math.min(query.page.perPage, maxPerPage), nextCursor(list, query)));
  }
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch && ifNoneMatch.split(",").some((tag) => tag.trim() === etag)) {
    return { status: 304, headers: { ...headers, "Cache-Control": "no-cache" }, body: null };
  }
  return { status: 200, headers: { "Content-Type": "application/json", "Cache-Control": "no-cache", ...headers }, body };
}

