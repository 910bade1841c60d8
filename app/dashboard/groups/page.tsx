import type { Metadata } from "next";
import Link from "next/link";
import { GroupTable } from "@/components/groups/group-table";
import { Pagination } from "@/components/ui/pagination";
import { pageFromQuery } from "@/lib/api/pagination";
import { requireSessionContext } from "@/lib/auth/session";
import { listGroups, newGroupPlace } from "@/lib/groups/groups";

export const metadata: Metadata = { title: "Groups" };

/** The groups the visitor belongs to, directly or through a group above (GitLab's dashboard groups). */
export default async function DashboardGroupsPage({ searchParams }: { searchParams: Promise<{ page?: string | string[] }> }) {
  const ctx = await requireSessionContext("/dashboard/groups");
  const page = pageFromQuery((await searchParams).page, 20);
  const [{ items, total, hasNext }, place] = await Promise.all([listGroups(ctx, { minAccessLevel: 10 }, page), newGroupPlace(ctx, undefined)]);
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Groups</h1>
          <p className="muted">Groups you are a member of.</p>
        </div>
        {place ? (
          <Link className="button" href="/groups/new">
            New group
          </Link>
        ) : null}
      </div>
      {items.length === 0 ? <p className="empty">You are not a member of any group yet.</p> : <GroupTable groups={items} />}
      <Pagination basePath="/dashboard/groups" page={page.page} perPage={page.perPage} total={total} hasNext={hasNext} />
    </>
  );
}
