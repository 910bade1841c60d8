import Link from "next/link";
import { GroupHeader } from "@/components/groups/group-header";
import { GroupTable } from "@/components/groups/group-table";
import { ProjectTable } from "@/components/projects/project-table";
import { Pagination } from "@/components/ui/pagination";
import { pageFromQuery } from "@/lib/api/pagination";
import { sessionContext } from "@/lib/auth/session";
import { groupPagePath } from "@/lib/groups/paths";
import { canInGroup } from "@/lib/groups/policy";
import { groupOverview } from "@/lib/groups/projects";
import { groupPageMetadata, groupPageNotFound, groupPathOf, type GroupPageProps } from "./group-page";

export const generateMetadata = groupPageMetadata(null);

export default async function GroupOverviewPage({ params, searchParams }: GroupPageProps & { searchParams: Promise<{ page?: string | string[] }> }) {
  const page = pageFromQuery((await searchParams).page, 20);
  const overview = await groupOverview(await sessionContext(), await groupPathOf(params), page);
  if (!overview) return groupPageNotFound(params);
  const { view, subgroups, projects } = overview;
  const { group } = view;
  return (
    <>
      <GroupHeader view={view} current="overview" />
      {group.description ? <p>{group.description}</p> : null}
      <div className="form-actions">
        {canInGroup(view, "createProject") ? (
          <Link className="button" href={`/projects/new?namespace_id=${group.id}`}>
            New project
          </Link>
        ) : null}
        {canInGroup(view, "createSubgroup") ? (
          <Link className="button button-secondary" href={`/groups/new?parent_id=${group.id}`}>
            New subgroup
          </Link>
        ) : null}
      </div>
      <section aria-labelledby="subgroups-heading">
        <h2 id="subgroups-heading">Subgroups</h2>
        {subgroups.items.length === 0 ? <p className="empty">No subgroups to show.</p> : <GroupTable groups={subgroups.items} />}
        {subgroups.hasNext ? <p className="muted">Showing the first {subgroups.items.length} subgroups.</p> : null}
      </section>
      <section aria-labelledby="projects-heading">
        <h2 id="projects-heading">Projects</h2>
        {projects.items.length === 0 ? <p className="empty">No projects to show.</p> : <ProjectTable projects={projects.items} />}
        <Pagination basePath={groupPagePath(group.fullPath)} page={page.page} perPage={page.perPage} total={projects.total} hasNext={projects.hasNext} />
      </section>
    </>
  );
}
