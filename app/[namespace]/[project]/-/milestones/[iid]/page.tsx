import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { IssueTable, issueStateChips } from "@/components/issues/issue-table";
import { MilestoneDates } from "@/components/issues/milestone-dates";
import { ProjectHeader } from "@/components/projects/project-header";
import { LinkChips } from "@/components/ui/link-chips";
import { Pagination } from "@/components/ui/pagination";
import { pageFromQuery } from "@/lib/api/pagination";
import { sessionContext } from "@/lib/auth/session";
import { listIssuesUnderMilestone } from "@/lib/issues/issue-list";
import { getMilestoneByIid } from "@/lib/issues/milestones";
import { projectFullPath } from "@/lib/projects/serialize";
import { routeProjectPath } from "@/lib/projects/route-path";
import { projectPageFailure } from "../../../project-page";

interface MilestonePageProps {
  params: Promise<{ namespace: string; project: string; iid: string }>;
  searchParams: Promise<{ page?: string | string[]; state?: string | string[] }>;
}

const perPage = 20;

const loadMilestone = cache(async (namespace: string, project: string, iid: string) => {
  if (!/^\d{1,9}$/.test(iid)) notFound();
  try {
    return await getMilestoneByIid(await sessionContext(), routeProjectPath({ namespace, project }), Number(iid));
  } catch (error) {
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/milestones/${iid}`);
  }
});

export async function generateMetadata({ params }: MilestonePageProps): Promise<Metadata> {
  const { namespace, project, iid } = await params;
  const { view, milestone } = await loadMilestone(namespace, project, iid);
  return { title: `${milestone.title} · Milestones · ${view.project.name}` };
}

/**
 * A milestone (its `web_url`): title, state, dates and description as written, and the issues filed under it that the
 * visitor may read, by state, as the project's issue list shows them.
 */
export default async function MilestonePage({ params, searchParams }: MilestonePageProps) {
  const { namespace, project, iid } = await params;
  const query = await searchParams;
  const found = await loadMilestone(namespace, project, iid);
  const { view, milestone } = found;
  const fullPath = projectFullPath(view);
  const page = pageFromQuery(query.page, perPage);
  const issueState = issueStateChips.find(({ value }) => value === query.state)?.value ?? "opened";
  const issues = await listIssuesUnderMilestone(await sessionContext(), found, issueState, page);
  const milestonePath = `/${fullPath}/-/milestones/${milestone.iid}`;
  return (
    <>
      <ProjectHeader view={view} current="milestones" />
      <div className="page-header">
        <div>
          <h2 style={{ margin: 0 }}>{milestone.title}</h2>
          <p className="muted">
            <span className="badge" data-testid="milestone-state">
              {milestone.state === "active" ? "Open" : "Closed"}
            </span>{" "}
            <MilestoneDates milestone={milestone} />
          </p>
        </div>
      </div>
      {milestone.description ? <p className="issue-description">{milestone.description}</p> : <p className="muted">No description.</p>}
      <section aria-labelledby="milestone-issues-heading">
        <h2 id="milestone-issues-heading">Issues</h2>
        <LinkChips label="Issue state" chips={issueStateChips} current={issueState} href={(value) => `${milestonePath}?state=${value}`} />
        <IssueTable fullPath={fullPath} items={issues.items} />
        <Pagination basePath={milestonePath} query={{ state: issueState }} page={page.page} perPage={perPage} total={issues.total} hasNext={issues.hasNext} />
      </section>
      <p>
        <Link href={`/${fullPath}/-/milestones`}>← All milestones</Link>
      </p>
    </>
  );
}
