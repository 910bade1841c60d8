import "server-only";
import { env } from "@/lib/env";
import { OffsetLimitExceededError, ParameterError } from "@/lib/errors";
import type { ListPage } from "@/lib/db/pages";
import { credentialParams } from "./request";

export { countLimit, type ListPage } from "@/lib/db/pages";

export const defaultPerPage = 20;
export const maxPerPage = 100;

/**
 * GitLab's default `offset_pagination_limit`: lists that also page by keyset refuse offset pages that reach past this
 * many rows, whose cost grows with the offset; keyset pages cost the same wherever they are.
 */
export const offsetLimit = 50_000;

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

export interface PageRequestOptions {
  /**
   * For lists that can also be paged by keyset: the type GitLab's refusal names (`Project`). Offset pages reaching past
   * `offsetLimit` rows are then refused as GitLab refuses them.
   */
  keysetType?: string;
}

/** GitLab's offset pagination: `page` from 1, `per_page` default 20, clamped to 100. */
export function pageRequest(params: { page?: number; per_page?: number }, options: PageRequestOptions = {}): PageRequest {
  const page = params.page ?? 1;
  const requested = params.per_page ?? defaultPerPage;
  if (requested < 1) throw new ParameterError("per_page", "does not have a valid value");
  const perPage = Math.min(requested, maxPerPage);
  // GitLab's test, `page * per_page > limit`: the last allowed page ends exactly at the limit.
  if (options.keysetType && page * perPage > offsetLimit) throw new OffsetLimitExceededError(offsetLimit, options.keysetType);
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * The page one of our own pages asks for in its `page` query parameter: a whole number from 1 (anything else is the
 * first page), and no further than the offset limit, since those pages link only to the previous and next ones.
 */
export function pageFromQuery(value: string | string[] | undefined, perPage: number): PageRequest {
  const text = Array.isArray(value) ? value[0] : value;
  const asked = text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : 1;
  const page = Math.min(Math.max(asked, 1), Math.max(1, Math.floor(offsetLimit / perPage)));
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * The absolute URL (from EXTERNAL_URL) of another page of the list a request asked for: every query parameter of the
 * request with `changes` applied, keys sorted as GitLab does, and never the credentials (`private_token`,
 * `access_token`), which would otherwise travel on in every URL a client logs or forwards.
 */
export function pageLinkUrl(requestUrl: URL, changes: Record<string, string | null>): string {
  const params = new URLSearchParams(requestUrl.searchParams);
  for (const name of new Set(params.keys())) {
    if (credentialParams.has(name.endsWith("[]") ? name.slice(0, -2) : name)) params.delete(name);
  }
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name);
    else params.set(name, value);
  }
  params.sort();
  return `${env.EXTERNAL_URL}${requestUrl.pathname}?${params.toString()}`;
}

/**
 * The header set GitLab clients follow: X-Page … X-Total-Pages and an RFC 8288 Link header whose URLs are absolute
 * and repeat the request's query parameters (see `pageLinkUrl`). Without a total (more than `countLimit` rows) there
 * is no `X-Total`, `X-Total-Pages` or `rel="last"`, as in GitLab, and `hasNext` says whether a next page exists.
 *
 * `continueAt`: the next offset page would be refused (it reaches past the list's offset limit), so `rel="next"` leads
 * on to the keyset page these parameters name instead, and `X-Next-Page` is empty. Clients that follow the link, as
 * GitLab's do, page on to the end; one that counts pages itself is refused at the next, as by GitLab.
 */
export function paginationHeaders(
  requestUrl: URL,
  pageRequest: PageRequest,
  { total, hasNext }: Pick<ListPage<unknown>, "total" | "hasNext">,
  continueAt?: Record<string, string | null>,
): Record<string, string> {
  const { page, perPage } = pageRequest;
  const totalPages = total === null ? null : Math.max(1, Math.ceil(total / perPage));
  const nextPage = continueAt ? null : totalPages === null ? (hasNext ? page + 1 : null) : page < totalPages ? page + 1 : null;
  const prevPage = page > 1 ? Math.min(page - 1, totalPages ?? page - 1) : null;

  const linkTo = (target: number) => `<${pageLinkUrl(requestUrl, { page: String(target), per_page: String(perPage) })}>`;
  const links = [
    prevPage !== null ? `${linkTo(prevPage)}; rel="prev"` : null,
    nextPage !== null ? `${linkTo(nextPage)}; rel="next"` : null,
    continueAt ? `<${pageLinkUrl(requestUrl, { ...continueAt, page: null, per_page: String(perPage) })}>; rel="next"` : null,
    `${linkTo(1)}; rel="first"`,
    totalPages !== null ? `${linkTo(totalPages)}; rel="last"` : null,
  ].filter((link): link is string => link !== null);

  return {
    "X-Page": String(page),
    "X-Per-Page": String(perPage),
    "X-Next-Page": nextPage === null ? "" : String(nextPage),
    "X-Prev-Page": prevPage === null ? "" : String(prevPage),
    ...(total === null ? {} : { "X-Total": String(total), "X-Total-Pages": String(totalPages) }),
    Link: links.join(", "),
  };
}

/**
 * The headers of a keyset page, as GitLab's keyset pagination sends them: the page size, and a `rel="next"` link
 * (the request's parameters with `next` applied) when another page follows. Keyset pages are never counted.
 */
export function keysetHeaders(requestUrl: URL, perPage: number, next: Record<string, string | null> | null): Record<string, string> {
  const headers: Record<string, string> = { "X-Per-Page": String(perPage) };
  if (next) headers.Link = `<${pageLinkUrl(requestUrl, { ...next, per_page: String(perPage) })}>; rel="next"`;
  return headers;
}

/**
 * GitLab's cursor for keyset pages (`Gitlab::Pagination::Keyset::Paginator`'s Base64CursorConverter): the values of
 * the order's columns in the last row of a page, with `_kd: "n"` (the next page), as URL-safe Base64 of JSON. Clients
 * never read it: they follow the `rel="next"` link that carries it.
 */
export function encodeCursor(values: Record<string, string>): string {
  return Buffer.from(JSON.stringify({ ...values, _kd: "n" })).toString("base64url");
}

/** The values of a cursor `encodeCursor` made (any others: 400, `cursor is invalid`). */
export function decodeCursor(cursor: string): Record<string, string> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new ParameterError("cursor", "is invalid");
  }
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded)) throw new ParameterError("cursor", "is invalid");
  const { _kd: direction, ...values } = decoded as Record<string, unknown>;
  if (direction !== "n" || !Object.values(values).every((value) => typeof value === "string")) throw new ParameterError("cursor", "is invalid");
  return values as Record<string, string>;
}
