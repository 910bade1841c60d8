import type { Metadata } from "next";
import Link from "next/link";
import { notFound, permanentRedirect, redirect } from "next/navigation";
import { cache } from "react";
import { ActivityFeed } from "@/components/events/activity-feed";
import { ProjectTable } from "@/components/projects/project-table";
import { DateText } from "@/components/ui/date-text";
import { Pagination } from "@/components/ui/pagination";
import { pageFromQuery } from "@/lib/api/pagination";
import { sessionContext } from "@/lib/auth/session";
import { NotFoundError } from "@/lib/errors";
import { findVisibleGroup } from "@/lib/groups/groups";
import { groupPagePath } from "@/lib/groups/paths";
import { absoluteUrl, feedPaths } from "@/lib/events/feeds";
import { listUserProjects } from "@/lib/projects/projects";
import { renamedUsername } from "@/lib/users/users";

interface UserPageProps {
  params: Promise<{ namespace: string }>;
  searchParams: Promise<{ page?: string | string[] }>;
}

const loadUserPage = cache(async (username: string, pageParam: string | string[] | undefined) => {
  const page = pageFromQuery(pageParam, 20);
  const ctx = await sessionContext();
  try {
    return { page, ...(await listUserProjects(ctx, username, page)) };
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // A username given up in a rename leads to the user's page under the new one, until someone else takes it.
    const renamed = await renamedUsername(ctx, username);
    if (renamed) permanentRedirect(`/${renamed}${page.page === 1 ? "" : `?page=${page.page}`}`);
    // A top-level group's path is a first segment too, as on GitLab.
    const group = await findVisibleGroup(ctx, username);
    if (group) redirect(groupPagePath(group.group.fullPath));
    notFound();
  }
});

export async function generateMetadata({ params, searchParams }: UserPageProps): Promise<Metadata> {
  const { user } = await loadUserPage((await params).namespace, (await searchParams).page);
  return {
    title: `${user.name} (@${user.username})`,
    alternates: { types: { "application/atom+xml": absoluteUrl(feedPaths.user(user.username)) } },
  };
}

export default async function UserPage({ params, searchParams }: UserPageProps) {
  const { user, items, total, hasNext, page } = await loadUserPage((await params).namespace, (await searchParams).page);
  const pageNumber = page.page;
  return (
    <>
      <div className="page-header">
        <div>
          <h1>{user.name}</h1>
          <p className="muted">
            @{user.username} · Member since <DateText value={user.createdAt} />
          </p>
        </div>
      </div>
      <section aria-labelledby="user-projects-heading">
        <h2 id="user-projects-heading">Projects</h2>
        {items.length === 0 ? (
          <p className="empty">No projects to show.</p>
        ) : (
          <ProjectTable projects={items} />
        )}
        <Pagination basePath={`/${user.username}`} page={pageNumber} perPage={20} total={total} hasNext={hasNext} />
      </section>
      <section aria-labelledby="user-activity-heading">
        <h2 id="user-activity-heading">Activity</h2>
        <ActivityFeed endpoint={`/api/v4/users/${user.id}/events`} feed={{ path: feedPaths.user(user.username), label: "Subscribe" }} />
      </section>
      <p>
        <Link href="/projects">← Your projects</Link>
      </p>
    </>
  );
}
