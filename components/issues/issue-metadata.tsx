import Link from "next/link";
import { DetailsList } from "@/components/ui/details-list";
import { labelTextColor } from "@/lib/issues/label-rules";

interface IssueMetadataProps {
  labels: { title: string; color: string }[];
  assignees: { username: string; name: string }[];
  /** The milestone and its page. */
  milestone: { title: string; href: string } | null;
  dueDate: string | null;
}

/** What an issue is filed under, read-only: assignees, labels in their colours, milestone and due date. */
export function IssueMetadata({ labels, assignees, milestone, dueDate }: IssueMetadataProps) {
  const none = <span className="muted">None</span>;
  return (
    <section aria-labelledby="issue-metadata-heading">
      <h2 id="issue-metadata-heading" className="visually-hidden">
        Details
      </h2>
      <DetailsList
        labelledBy="issue-metadata-heading"
        rows={[
          [
            "Assignees",
            assignees.length === 0
              ? none
              : assignees.map((assignee, index) => (
                  <span key={assignee.username}>
                    {index > 0 ? ", " : null}
                    <Link href={`/${assignee.username}`}>{assignee.name}</Link>
                  </span>
                )),
          ],
          [
            "Labels",
            labels.length === 0 ? (
              none
            ) : (
              <span className="badges">
                {labels.map((label) => (
                  <span key={label.title} className="badge" style={{ background: label.color, color: labelTextColor(label.color), borderColor: label.color }}>
                    {label.title}
                  </span>
                ))}
              </span>
            ),
          ],
          ["Milestone", milestone ? <Link href={milestone.href}>{milestone.title}</Link> : none],
          ["Due date", dueDate ?? none],
        ]}
      />
    </section>
  );
}
