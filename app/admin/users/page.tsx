import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AdminNavigation } from "@/components/admin/admin-navigation";
import { AdminUserTable } from "@/components/admin/admin-user-table";
import { countLabel, Pagination } from "@/components/ui/pagination";
import { pageFromQuery } from "@/lib/api/pagination";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { listUsersAsAdmin } from "@/lib/users/admin";

export const metadata: Metadata = { title: "Users · Admin" };

const perPage = 20;

interface AdminUsersPageProps {
  searchParams: Promise<{ page?: string | string[]; search?: string | string[] }>;
}

/** GitLab's Admin area › Users: every account, searchable, with its state and whether its address is confirmed. */
export default async function AdminUsersPage({ searchParams }: AdminUsersPageProps) {
  const ctx = await requireSessionContext("/admin/users");
  const query = await searchParams;
  const search = typeof query.search === "string" ? query.search.trim() : "";
  const page = pageFromQuery(query.page, perPage);
  let result: Awaited<ReturnType<typeof listUsersAsAdmin>>;
  try {
    result = await listUsersAsAdmin(ctx, { search: search || undefined }, page);
  } catch (error) {
    // The admin area does not exist for anyone else.
    if (error instanceof ForbiddenError) notFound();
    throw error;
  }
  return (
    <>
      <AdminNavigation current="users" />
      <div className="page-header">
        <div>
          <h1>Users</h1>
          <p className="muted">
            Admin area: every account on this instance ({countLabel(result.total)}{search ? " matching" : ""}). See also{" "}
            <Link href="/admin/applications">applications</Link>.
          </p>
        </div>
      </div>
      <form method="get" action="/admin/users" className="search-form" role="search">
        <label htmlFor="user-search" className="visually-hidden">
          Search by name, username or email
        </label>
        <input id="user-search" name="search" type="search" defaultValue={search} placeholder="Search by name, username or email" />
        <button type="submit" className="button button-secondary">
          Search
        </button>
      </form>
      {result.items.length === 0 ? <p className="empty">No users found.</p> : <AdminUserTable users={result.items} />}
      <Pagination basePath="/admin/users" page={page.page} perPage={perPage} total={result.total} hasNext={result.hasNext} query={search ? { search } : {}} />
    </>
  );
}
