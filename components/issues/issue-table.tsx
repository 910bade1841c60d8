import Link from "next/link";
import { DateText } from "@/components/ui/date-text";
import { TableHead } from "@/components/ui/table-head";
import type { IssueDetails } from "@/lib/issues/issue-details";

/** The issue lists' state filter (`?state=`), as GitLab names its values. */
export const issueStateChips = [
  { value: "opened", label: "Open" },
  { value: "closed", label: "Closed" },
  { value: "all", label: "All" },
] as const;

/** A page of a project's issues, each linking to its own page: the issue list's and a milestone page's. */
export function IssueTable({ fullPath, items }: { fullPath: string; items: Pick<IssueDetails, "issue" | "author">[] }) {
  if (items.length === 0) return <p className="empty">No issues to show.</p>;
  return (
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
  );
}
