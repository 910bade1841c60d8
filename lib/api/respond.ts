import "server-only";
import { paginationHeaders, type PageRequest } from "./pagination";

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers },
  });
}

export function created(body: unknown): Response {
  return json(body, 201);
}

export function noContent(): Response {
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}

/** A page of a list with GitLab's pagination headers. */
export function paginated<T>(url: URL, page: PageRequest, result: { items: T[]; total: number }): Response {
  return json(result.items, 200, paginationHeaders(url, page, result.total));
}
