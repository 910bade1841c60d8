import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { CommentForm, IssueStateButton } from "@/components/issues/issue-forms";
import { IssueMetadata } from "@/components/issues/issue-metadata";
import { MarkdownBody } from "@/components/issues/markdown-body";
import { ProjectHeader } from "@/components/projects/project-header";
import { DateText } from "@/components/ui/date-text";
import { Pagination } from "@/components/ui/pagination";
import { sessionContext } from "@/lib/auth/session";
import { pageFromQuery } from "@/lib/api/pagination";
import { issuePageNotesPerPage, listIssueNotes } from "@/lib/issues/notes";
import { can } from "@/lib/projects/policy";
import { projectFullPath } from "@/lib/projects/serialize";
import { addCommentAction, setIssueStateAction } from "../actions";
import { projectPageFailure } from "../../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

interface IssuePageProps {
  params: Promise<{ namespace: string; project: string; iid: string }>;
  searchParams: Promise<{ page?: string | string[] }>;
}

const loadIssue = cache(async (namespace: string, project: string, iid: string, notesPage = 1) => {
  if (!/^\d{1,9}$/.test(iid)) notFound();
  const ctx = await sessionContext();
  try {
    return await listIssueNotes(ctx, routeProjectPath({ namespace, project }), Number(iid), notesPage);
  } catch (error) {
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/issues/${iid}${notesPage === 1 ? "" : `?page=${notesPage}`}`);
  }
});

export async function generateMetadata({ params }: IssuePageProps): Promise<Metadata> {
  const { namespace, project, iid } = await params;
  const { issueView } = await loadIssue(namespace, project, iid);
  return { title: `${issueView.issue.title} (#${issueView.issue.iid}) · Issues · ${issueView.view.project.name}` };
}

export default async function IssuePage({ params, searchParams }: IssuePageProps) {
  const { namespace, project, iid } = await params;
  const notesPage = pageFromQuery((await searchParams).page, issuePageNotesPerPage);
  const { issueView, descriptionHtml, notes } = await loadIssue(namespace, project, iid, notesPage.page);
  const { view, issue, author, labels, assignees, milestone } = issueView;
  const fullPath = projectFullPath(view);
  return (
    <>
      <ProjectHeader view={view} current="issues" />
      <div className="page-header">
        <div>
          <h2 style={{ margin: 0 }}>
            {issue.title} <span className="muted">#{issue.iid}</span>
          </h2>
          <p className="muted">
            <span className="badge" data-testid="issue-state">
              {issue.state === "opened" ? "Open" : "Closed"}
            </span>{" "}
            {issue.confidential ? <span className="badge">confidential</span> : null} Opened <DateText value={issue.createdAt} /> by{" "}
            <Link href={`/${author.username}`}>{author.name}</Link>
          </p>
        </div>
        {can(view, "closeIssue") ? <IssueStateButton state={issue.state} change={setIssueStateAction.bind(null, fullPath, issue.iid)} /> : null}
      </div>
      {issue.description ? <MarkdownBody html={descriptionHtml ?? ""} className="issue-description" /> : <p className="muted">No description.</p>}
      <IssueMetadata
        labels={labels}
        assignees={assignees}
        milestone={milestone ? { title: milestone.title, href: `/${fullPath}/-/milestones/${milestone.iid}` } : null}
        dueDate={issue.dueDate}
      />
      <section aria-labelledby="comments-heading">
        <h2 id="comments-heading">Comments ({issueView.userNotesCount})</h2>
        {notes.items.map(({ note, author: noteAuthor, html }) =>
          note.system ? (
            <p key={note.id} id={`note_${note.id}`} className="system-note">
              <Link href={`/${noteAuthor.username}`}>{noteAuthor.name}</Link> {note.body} <DateText value={note.createdAt} />
            </p>
          ) : (
            <article key={note.id} id={`note_${note.id}`} className={note.internal ? "comment comment-internal" : "comment"}>
              <p className="muted" style={{ margin: "0 0 0.4rem" }}>
                <Link href={`/${noteAuthor.username}`}>{noteAuthor.name}</Link> · <DateText value={note.createdAt} />
                {note.internal ? (
                  <>
                    {" "}
                    <span className="badge badge-warning">Internal note</span>
                  </>
                ) : null}
              </p>
              <MarkdownBody html={html ?? ""} className="comment-body" />
            </article>
          ),
        )}
        <Pagination basePath={`/${fullPath}/-/issues/${issue.iid}`} page={notesPage.page} perPage={notesPage.perPage} total={notes.total} hasNext={notes.hasNext} />
        {can(view, "comment") ? (
          <CommentForm comment={addCommentAction.bind(null, fullPath, issue.iid)} allowInternal={can(view, "createInternalNote")} />
        ) : null}
      </section>
      <p>
        <Link href={`/${fullPath}/-/issues`}>← All issues</Link>
      </p>
    </>
  );
}
