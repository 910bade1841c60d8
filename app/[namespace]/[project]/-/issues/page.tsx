import Link from "next/link";
import { NewIssueForm } from "@/components/issues/issue-forms";
import { ProjectHeader } from "@/components/projects/project-header";
import { DateText } from "@/components/ui/date-text";
import { Pagination } from "@/components/ui/pagination";
import { TableHead } from "@/components/ui/table-head";
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
const states = ["opened", "closed", "all"] as const;

interface IssuesPageProps {
  params: Promise<{ namespace: string; project: string }>;
  searchParams: Promise<{ page?: string | string[]; state?: string | string[] }>;
}

export default async function IssuesPage({ params, searchParams }: IssuesPageProps) {
  const { namespace, project } = await params;
  const query = await searchParams;
  const page = pageFromQuery(query.page, perPage);
  const state = states.find((value) => value === query.state) ?? "opened";
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
      <nav className="chips" aria-label="Issue state">
        {states.map((value) => (
          <Link key={value} className="chip" aria-current={value === state ? "page" : undefined} href={`/${fullPath}/-/issues?state=${value}`}>
            {value === "opened" ? "Open" : value === "closed" ? "Closed" : "All"}
          </Link>
        ))}
      </nav>
      {items.length === 0 ? (
        <p className="empty">No issues to show.</p>
      ) : (
        <table className="table">
          <TableHead columns={["Issue", "State", "Author", "Opened"]} />
          <tbody>
            {items.map(({ issue, author }) => (
              <tr key={issue.id}>
                <td className="long-text">
                  <Link href={`/${fullPath}/-/issues/${issue.iid}`}>
                    #{issue.iid} {issue.title}
                  </Link>
                  {issue.confidential ? <span className="badge">confidential</span> : null}
                </td>
                <td className="issue-state">{issue.state === "opened" ? "open" : "closed"}</td>
                <td>
                  <Link href={`/${author.username}`}>{author.name}</Link>
                </td>
                <td>
                  <DateText value={issue.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pagination basePath={`/${fullPath}/-/issues`} page={page.page} perPage={perPage} total={total} hasNext={hasNext} />
      {canCreate ? (
        <div className="section">
          <NewIssueForm create={createIssueAction.bind(null, fullPath)} issuesPath={`/${fullPath}/-/issues`} />
        </div>
      ) : null}
    </>
  );
}
