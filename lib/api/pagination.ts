import "server-only";
import { env } from "@/lib/env";
import { ParameterError } from "@/lib/errors";
import { credentialParams } from "./request";

export const defaultPerPage = 20;
export const maxPerPage = 100;

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** GitLab's offset pagination: `page` from 1, `per_page` default 20, clamped to 100. */
export function pageRequest(params: { page?: number; per_page?: number }): PageRequest {
  const page = params.page ?? 1;
  const requested = params.per_page ?? defaultPerPage;
  if (requested < 1) throw new ParameterError("per_page", "does not have a valid value");
  const perPage = Math.min(requested, maxPerPage);
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
 * The full header set GitLab clients follow: X-Page … X-Total-Pages and an RFC 8288 Link header whose URLs are
 * absolute and repeat the request's query parameters (see `pageLinkUrl`).
 */
export function paginationHeaders(requestUrl: URL, pageRequest: PageRequest, total: number): Record<string, string> {
  const { page, perPage } = pageRequest;
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const nextPage = page < totalPages ? page + 1 : null;
  const prevPage = page > 1 ? Math.min(page - 1, totalPages) : null;

  const linkTo = (target: number) => `<${pageLinkUrl(requestUrl, { page: String(target), per_page: String(perPage) })}>`;
  const links = [
    prevPage !== null ? `${linkTo(prevPage)}; rel="prev"` : null,
    nextPage !== null ? `${linkTo(nextPage)}; rel="next"` : null,
    `${linkTo(1)}; rel="first"`,
    `${linkTo(totalPages)}; rel="last"`,
  ].filter((link): link is string => link !== null);

  return {
    "X-Page": String(page),
    "X-Per-Page": String(perPage),
    "X-Next-Page": nextPage === null ? "" : String(nextPage),
    "X-Prev-Page": prevPage === null ? "" : String(prevPage),
    "X-Total": String(total),
    "X-Total-Pages": String(totalPages),
    Link: links.join(", "),
  };
}
