import type { Metadata } from "next";
import Link from "next/link";
import { ProjectTable } from "@/components/projects/project-table";
import { Pagination } from "@/components/ui/pagination";
import { pageFromQuery } from "@/lib/api/pagination";
import { requireSessionContext } from "@/lib/auth/session";
import { listProjects } from "@/lib/projects/projects";

export const metadata: Metadata = { title: "Projects" };

export default async function ProjectsPage({ searchParams }: { searchParams: Promise<{ page?: string | string[] }> }) {
  const ctx = await requireSessionContext("/projects");
  const { page: pageParam } = await searchParams;
  const page = pageFromQuery(pageParam, 20);
  const { items, total, hasNext } = await listProjects(ctx, { membership: true }, page);
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Projects</h1>
          <p className="muted">Projects you are a member of.</p>
        </div>
        <Link className="button" href="/projects/new">
          New project
        </Link>
      </div>
      {items.length === 0 ? (
        <p className="empty">
          You are not a member of any project yet. <Link href="/projects/new">Create one</Link>.
        </p>
      ) : (
        <ProjectTable projects={items} />
      )}
      <Pagination basePath="/projects" page={page.page} perPage={page.perPage} total={total} hasNext={hasNext} />
    </>
  );
}
