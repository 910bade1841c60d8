import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AdminApplicationTable } from "@/components/admin/admin-application-table";
import { countLabel, Pagination } from "@/components/ui/pagination";
import { pageFromQuery } from "@/lib/api/pagination";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { listApplicationsForAdminArea } from "@/lib/oauth/applications";
import { deleteApplicationAdminAction, distrustApplicationAction, trustApplicationAction } from "./actions";

export const metadata: Metadata = { title: "Applications · Admin" };

const perPage = 20;

interface AdminApplicationsPageProps {
  searchParams: Promise<{ page?: string | string[]; filter?: string | string[] }>;
}

/**
 * GitLab's Admin area › Applications: every OAuth application on the instance, those that registered themselves
 * (dynamic registration, client metadata documents) marked unverified, with Trust and Delete.
 */
export default async function AdminApplicationsPage({ searchParams }: AdminApplicationsPageProps) {
  const ctx = await requireSessionContext("/admin/applications");
  const query = await searchParams;
  const unverifiedOnly = query.filter === "unverified";
  const page = pageFromQuery(query.page, perPage);
  let result: Awaited<ReturnType<typeof listApplicationsForAdminArea>>;
  try {
    result = await listApplicationsForAdminArea(ctx, { unverifiedOnly }, page);
  } catch (error) {
    // The admin area does not exist for anyone else.
    if (error instanceof ForbiddenError) notFound();
    throw error;
  }
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
      <Pagination basePath="/admin/applications" page={page.page} perPage={perPage} total={result.total} hasNext={result.hasNext} query={unverifiedOnly ? { filter: "unverified" } : {}} />
    </>
  );
}
