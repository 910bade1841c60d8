import Link from "next/link";

/**
 * Previous/next links for a list page; nothing when everything fits on one page. `total` is null past the count limit
 * (then `hasNext` says whether a next page exists, and the number of pages goes unsaid). The links go to `basePath`
 * with `query`, the list's other parameters (a search), kept on every link, unless `href` builds them.
 */
export function Pagination({
  basePath = "",
  page,
  perPage,
  total,
  hasNext,
  query = {},
  href = (target) => `${basePath}?${new URLSearchParams({ ...query, page: String(target) }).toString()}`,
}: {
  basePath?: string;
  page: number;
  perPage: number;
  total: number | null;
  hasNext: boolean;
  query?: Record<string, string>;
  href?: (page: number) => string;
}) {
  const totalPages = total === null ? null : Math.max(1, Math.ceil(total / perPage));
  const nextExists = totalPages === null ? hasNext : page < totalPages;
  if (page <= 1 && !nextExists) return null;
  return (
    <nav className="pagination" aria-label="Pagination">
      {page > 1 ? <Link href={href(page - 1)}>← Previous</Link> : <span aria-hidden="true" />}
      <span>{totalPages === null ? `Page ${page}` : `Page ${page} of ${totalPages}`}</span>
      {nextExists ? <Link href={href(page + 1)}>Next →</Link> : <span aria-hidden="true" />}
    </nav>
  );
}

/** A list's size as a page states it: past the count limit (10,000 rows, as GitLab counts), only that it is more. */
export function countLabel(total: number | null): string {
  return total === null ? "more than 10,000" : String(total);
}
