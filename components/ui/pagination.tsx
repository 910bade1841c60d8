import Link from "next/link";

/**
 * Previous/next links for a list page; nothing when everything fits on one page. `query` holds the list's other
 * parameters (a search), kept on every link.
 */
export function Pagination({
  basePath,
  page,
  perPage,
  total,
  query = {},
}: {
  basePath: string;
  page: number;
  perPage: number;
  total: number;
  query?: Record<string, string>;
}) {
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  if (totalPages <= 1) return null;
  const href = (target: number) => `${basePath}?${new URLSearchParams({ ...query, page: String(target) }).toString()}`;
  return (
    <nav className="pagination" aria-label="Pagination">
      {page > 1 ? <Link href={href(page - 1)}>← Previous</Link> : <span aria-hidden="true" />}
      <span>
        Page {page} of {totalPages}
      </span>
      {page < totalPages ? <Link href={href(page + 1)}>Next →</Link> : <span aria-hidden="true" />}
    </nav>
  );
}
