import "server-only";
import type { Answer } from "@/lib/http/answer";
import { paginationHeaders, type ListPage, type PageRequest } from "./pagination";

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Answer {
  return { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers }, body: JSON.stringify(body) };
}

export function created(body: unknown): Answer {
  return json(body, 201);
}

export function noContent(): Answer {
  return { status: 204, headers: { "Cache-Control": "no-store" }, body: null };
}

/** A page of a list with GitLab's pagination headers. */
export function paginated<T>(url: URL, page: PageRequest, result: ListPage<T>): Answer {
  return json(result.items, 200, paginationHeaders(url, page, result));
}
