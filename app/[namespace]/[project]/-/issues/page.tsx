import { NewIssueForm } from "@/components/issues/issue-forms";
import { IssueTable, issueStateChips } from "@/components/issues/issue-table";
import { ProjectHeader } from "@/components/projects/project-header";
import { LinkChips } from "@/components/ui/link-chips";
import { Pagination } from "@/components/ui/pagination";
import { pageFromQuery } from "@/lib/api/pagination";
import { sessionContext } from "@/lib/auth/session";
import { listIssues } from "@/lib/issues/issue-list";
import { can } from "@/lib/projects/policy";
import { projectFullPath } from "@/lib/projects/serialize";
import { createIssueAction } from "./actions";
import { projectPageFailure, projectPageMetadata, searchOf } from "../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

export const generateMetadata = projectPageMetadata("Issues");

const perPage = 20;

interface IssuesPageProps {
  params: Promise<{ namespace: string; project: string }>;
  searchParams: Promise<{ page?: string | string[]; state?: string | string[] }>;
}

export default async function IssuesPage({ params, searchParams }: IssuesPageProps) {
  const { namespace, project } = await params;
  const query = await searchParams;
  const page = pageFromQuery(query.page, perPage);
  const state = issueStateChips.find(({ value }) => value === query.state)?.value ?? "opened";
  const ctx = await sessionContext();
  let result: Awaited<ReturnType<typeof listIssues>>;
  try {
    result = await listIssues(ctx, routeProjectPath({ namespace, project }), { state }, page);
  } catch (error) {
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/issues${searchOf(query)}`);
  }
  const { view: projectView, items, total, hasNext } = result;
  const fullPath = projectFullPath(projectView);
  const canCreate = can(projectView, "createIssue");
  return (
    <>
      <ProjectHeader view={projectView} current="issues" />
      <LinkChips label="Issue state" chips={issueStateChips} current={state} href={(value) => `/${fullPath}/-/issues?state=${value}`} />
      <IssueTable fullPath={fullPath} items={items} />
      <Pagination basePath={`/${fullPath}/-/issues`} page={page.page} perPage={perPage} total={total} hasNext={hasNext} />
      {canCreate ? (
        <div className="section">
          <NewIssueForm create={createIssueAction.bind(null, fullPath)} issuesPath={`/${fullPath}/-/issues`} />
        </div>
      ) : null}
    </>
  );
}
