import Link from "next/link";
import { ProjectHeader } from "@/components/projects/project-header";
import { MilestoneDates } from "@/components/issues/milestone-dates";
import { LinkChips } from "@/components/ui/link-chips";
import { Pagination } from "@/components/ui/pagination";
import { TableHead } from "@/components/ui/table-head";
import { pageFromQuery } from "@/lib/api/pagination";
import { sessionContext } from "@/lib/auth/session";
import { listMilestones } from "@/lib/issues/milestones";
import { projectFullPath } from "@/lib/projects/serialize";
import { routeProjectPath } from "@/lib/projects/route-path";
import { projectPageFailure, projectPageMetadata, searchOf } from "../../project-page";

export const generateMetadata = projectPageMetadata("Milestones");

const perPage = 20;
/** The tabs as GitLab's milestones page names them in its URL (`?state=opened`); a milestone's own state is `active`. */
const tabs = [
  { value: "opened", label: "Open", filter: "active" },
  { value: "closed", label: "Closed", filter: "closed" },
  { value: "all", label: "All", filter: "all" },
] as const;

interface MilestonesPageProps {
  params: Promise<{ namespace: string; project: string }>;
  searchParams: Promise<{ page?: string | string[]; state?: string | string[] }>;
}

/** A project's milestones, due soonest first, as the API lists them; each links to its own page. */
export default async function MilestonesPage({ params, searchParams }: MilestonesPageProps) {
  const { namespace, project } = await params;
  const query = await searchParams;
  const page = pageFromQuery(query.page, perPage);
  const tab = tabs.find(({ value }) => value === query.state) ?? tabs[0];
  const ctx = await sessionContext();
  let result: Awaited<ReturnType<typeof listMilestones>>;
  try {
    result = await listMilestones(ctx, routeProjectPath({ namespace, project }), { state: tab.filter }, page);
  } catch (error) {
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/milestones${searchOf(query)}`);
  }
  const { view, items, total, hasNext } = result;
  const fullPath = projectFullPath(view);
  return (
    <>
      <ProjectHeader view={view} current="milestones" />
      <LinkChips label="Milestone state" chips={tabs} current={tab.value} href={(value) => `/${fullPath}/-/milestones?state=${value}`} />
      {items.length === 0 ? (
        <p className="empty">No milestones to show.</p>
      ) : (
        <table className="table">
          <TableHead columns={["Milestone", "Dates", "State"]} />
          <tbody>
            {items.map(({ milestone }) => (
              <tr key={milestone.id}>
                <td className="long-text">
                  <Link href={`/${fullPath}/-/milestones/${milestone.iid}`}>
                    {milestone.title}
                  </Link>
                </td>
                <td>
                  <MilestoneDates milestone={milestone} />
                </td>
                <td className="issue-state">{milestone.state === "active" ? "open" : "closed"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pagination basePath={`/${fullPath}/-/milestones`} query={{ state: tab.value }} page={page.page} perPage={perPage} total={total} hasNext={hasNext} />
    </>
  );
}
