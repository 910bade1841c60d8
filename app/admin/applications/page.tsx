import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AdminApplicationTable } from "@/components/admin/admin-application-table";
import { countLabel, Pagination } from "@/components/ui/pagination";
import { pageFromQuery } from "@/lib/api/pagination";
import { requireSessionContext } from "@/lib/auth/session";
import { Notice } from "@/components/ui/notice";
import { ForbiddenError, ParameterError } from "@/lib/errors";
import { listApplicationsForAdminArea } from "@/lib/oauth/applications";
import { deleteApplicationAdminAction, distrustApplicationAction, trustApplicationAction } from "./actions";

export const metadata: Metadata = { title: "Applications · Admin" };

const perPage = 20;

interface AdminApplicationsPageProps {
  searchParams: Promise<{ page?: string | string[]; filter?: string | string[]; search?: string | string[] }>;
}

/**
 * GitLab's Admin area › Applications: every OAuth application on the instance, those that registered themselves
 * (dynamic registration, client metadata documents) marked unverified, with Trust and Delete.
 */
export default async function AdminApplicationsPage({ searchParams }: AdminApplicationsPageProps) {
  const ctx = await requireSessionContext("/admin/applications");
  const query = await searchParams;
  const unverifiedOnly = query.filter === "unverified";
  const search = typeof query.search === "string" ? query.search.trim() : "";
  const page = pageFromQuery(query.page, perPage);
  let result: Awaited<ReturnType<typeof listApplicationsForAdminArea>>;
  let searchProblem: string | null = null;
  try {
    result = await listApplicationsForAdminArea(ctx, { unverifiedOnly, search: search || undefined }, page);
  } catch (error) {
    // The admin area does not exist for anyone else.
    if (error instanceof ForbiddenError) notFound();
    if (!(error instanceof ParameterError)) throw error;
    // A search beyond GitLab's bounds finds nothing, and says why.
    searchProblem = `The ${error.message}.`;
    result = { items: [], total: 0, hasNext: false };
  }
  const filterQuery: Record<string, string> = { ...(unverifiedOnly ? { filter: "unverified" } : {}), ...(search ? { search } : {}) };
  const applications = result.items.map((application) => ({
    id: application.id,
    name: application.name,
    uid: application.uid,
    registration: application.registration,
    trusted: application.trusted,
    confidential: application.confidential,
    scopes: application.scopes,
    createdAt: application.createdAt,
  }));
  return (
    <>
      <div className="breadcrumbs">
        <Link href="/admin/users">Admin</Link> / Applications
      </div>
      <div className="page-header">
        <div>
          <h1>Applications</h1>
          <p className="muted">
            Admin area: {unverifiedOnly ? "unverified applications" : "every OAuth application on this instance, newest first"} (
            {countLabel(result.total)}). Applications that
            registered themselves are unverified until you trust them; those nobody authorized within a day are removed.
          </p>
        </div>
      </div>
      <form method="get" action="/admin/applications" className="search-form" role="search">
        {unverifiedOnly ? <input type="hidden" name="filter" value="unverified" /> : null}
        <label htmlFor="application-search" className="visually-hidden">
          Search by name or client ID
        </label>
        <input id="application-search" name="search" type="search" defaultValue={search} placeholder="Search by name or client ID" />
        <button type="submit" className="button button-secondary">
          Search
        </button>
      </form>
      {searchProblem ? <Notice tone="error">{searchProblem}</Notice> : null}
      <nav aria-label="Filter applications" className="filter-links">
        <Link href="/admin/applications" aria-current={unverifiedOnly ? undefined : "page"}>
          All
        </Link>{" "}
        ·{" "}
        <Link href="/admin/applications?filter=unverified" aria-current={unverifiedOnly ? "page" : undefined}>
          Unverified
        </Link>
      </nav>
      {applications.length === 0 ? (
        <p className="empty">No applications yet.</p>
      ) : (
        <AdminApplicationTable
          applications={applications}
          trust={trustApplicationAction}
          distrust={distrustApplicationAction}
          remove={deleteApplicationAdminAction}
        />
      )}
      <Pagination basePath="/admin/applications" page={page.page} perPage={perPage} total={result.total} hasNext={result.hasNext} query={filterQuery} />
    </>
  );
}
