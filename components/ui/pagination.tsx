import Link from "next/link";

/** Previous/next links for a list page; nothing when everything fits on one page. */
export function Pagination({ basePath, page, perPage, total }: { basePath: string; page: number; perPage: number; total: number }) {
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  if (totalPages <= 1) return null;
  const href = (target: number) => `${basePath}?page=${target}`;
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
