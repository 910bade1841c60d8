import "server-only";
import { env } from "@/lib/env";
import { ParameterError } from "@/lib/errors";

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
 * The full header set GitLab clients follow: X-Page … X-Total-Pages and an RFC 8288 Link header whose URLs are
 * absolute (from EXTERNAL_URL) and repeat every query parameter of the request, with keys sorted as GitLab does.
 */
export function paginationHeaders(requestUrl: URL, pageRequest: PageRequest, total: number): Record<string, string> {
  const { page, perPage } = pageRequest;
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const nextPage = page < totalPages ? page + 1 : null;
  const prevPage = page > 1 ? Math.min(page - 1, totalPages) : null;

  const linkTo = (target: number) => {
    const params = new URLSearchParams(requestUrl.searchParams);
    params.set("page", String(target));
    params.set("per_page", String(perPage));
    params.sort();
    return `<${env.EXTERNAL_URL}${requestUrl.pathname}?${params.toString()}>`;
  };
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
