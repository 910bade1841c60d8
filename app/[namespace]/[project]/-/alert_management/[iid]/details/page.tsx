import Link from "next/link";
import { notFound } from "next/navigation";
import { Fragment, type ReactNode } from "react";
import { AlertAssignee } from "@/components/alerts/alert-assignee";
import { AlertStatusControl, AlertTriage } from "@/components/alerts/alert-triage";
import { AlertIncident } from "@/components/alerts/create-incident";
import { AlertSnooze } from "@/components/alerts/alert-snooze";
import { ProjectHeader } from "@/components/projects/project-header";
import { DetailsList } from "@/components/ui/details-list";
import { RelativeTime } from "@/components/ui/relative-time";
import { getAlert, type AlertDetails } from "@/lib/alerts/alerts";
import { alertSeverityLabels, alertStatusLabels } from "@/lib/alerts/form-schemas";
import { payloadFormatLabels } from "@/lib/alerts/formats/types";
import { requireSessionContext } from "@/lib/auth/session";
import { ForbiddenError } from "@/lib/errors";
import { can } from "@/lib/projects/policy";
import { projectFullPath } from "@/lib/projects/serialize";
import { createAlertIncidentAction, setAlertAssigneeAction, snoozeAlertAction, updateAlertStatusAction } from "../../actions";
import { projectPageFailure, projectPageMetadata } from "../../../../project-page";
import { routeProjectPath } from "@/lib/projects/route-path";

export const generateMetadata = projectPageMetadata("Alert details");

/** System notes carry GitLab's `**bold**` markup and nothing else: render just that, everything else as text. */
function noteBody(body: string): ReactNode {
  return body.split(/(\*\*[^*]+\*\*)/).map((part, index) =>
    part.startsWith("**") && part.endsWith("**") && part.length > 4 ? <strong key={index}>{part.slice(2, -2)}</strong> : <Fragment key={index}>{part}</Fragment>,
  );
}

function exactTime(date: Date | null): string {
  return date ? date.toISOString().replace("T", " ").replace(/\.\d{3}Z$/, " UTC") : "—";
}

/** One alert (Reporter+): what it says, its whole payload, and what happened to it. */
export default async function AlertDetailsPage({ params }: { params: Promise<{ namespace: string; project: string; iid: string }> }) {
  const { namespace, project, iid } = await params;
  if (!/^\d{1,9}$/.test(iid)) notFound();
  const ctx = await requireSessionContext(`/${routeProjectPath({ namespace, project })}/-/alert_management/${iid}/details`);
  let details: AlertDetails;
  try {
    details = await getAlert(ctx, routeProjectPath({ namespace, project }), Number(iid));
  } catch (error) {
    if (error instanceof ForbiddenError) notFound();
    projectPageFailure(error, (fullPath) => `/${fullPath}/-/alert_management/${iid}/details`);
  }
  const { view, alert, issueIid, assignees, notes, links, payloadText, silence } = details;
  const fullPath = projectFullPath(view);
  const canTriage = can(view, "triageAlerts");
  const overview: [string, ReactNode][] = [
    ["Severity", <span key="severity" className={`severity severity-${alert.severity}`}>{alertSeverityLabels[alert.severity]}</span>],
    [
      "Status",
      canTriage ? (
        <AlertStatusControl key={alert.status} iid={alert.iid} status={alert.status} />
      ) : (
        alertStatusLabels[alert.status]
      ),
    ],
    [
      "Assignee",
      <AlertAssignee
        key="assignee"
        iid={alert.iid}
        assignees={assignees.map((user) => ({ username: user.username, name: user.name }))}
        assign={canTriage ? setAlertAssigneeAction.bind(null, fullPath, alert.iid) : undefined}
      />,
    ],
    [
      "Notifications",
      <div key="notifications" className="stack">
        {silence ? (
          <span>
            <span className="badge">Silenced</span> by{" "}
            <Link href={`/${fullPath}/-/alert_management/silences#silence-${silence.id}`}>silence {silence.id}</Link>: {silence.reason}
          </span>
        ) : null}
        <AlertSnooze
          snoozedUntil={alert.snoozedUntil && alert.snoozedUntil > ctx.now ? alert.snoozedUntil.toISOString() : null}
          untilResolved={alert.snoozedUntilResolved}
          snooze={canTriage && alert.status !== "resolved" ? snoozeAlertAction.bind(null, fullPath, alert.iid) : undefined}
        />
      </div>,
    ],
    ["Start time", <time key="start" dateTime={alert.startedAt.toISOString()}>{exactTime(alert.startedAt)}</time>],
    ["End time", alert.endedAt ? <time key="end" dateTime={alert.endedAt.toISOString()}>{exactTime(alert.endedAt)}</time> : "—"],
    ["Events", alert.eventCount],
    ["Monitoring tool", alert.monitoringTool ?? "—"],
    ["Payload format", alert.payloadFormat ? payloadFormatLabels[alert.payloadFormat] : "—"],
    ["Service", alert.service ?? "—"],
    ["Hosts", alert.hosts.length > 0 ? alert.hosts.join(", ") : "—"],
    ["Environment", alert.environment ?? "—"],
    [
      "Incident",
      <AlertIncident
        key="incident"
        issueIid={issueIid}
        issuesPath={`/${fullPath}/-/issues`}
        create={canTriage ? createAlertIncidentAction.bind(null, fullPath, alert.iid) : undefined}
      />,
    ],
  ];

  return (
    <>
      <ProjectHeader view={view} current="alerts" />
      <p className="breadcrumbs">
        <Link href={`/${fullPath}/-/alert_management`}>Alerts</Link> / #{alert.iid}
      </p>
      <h2 className="alert-title">
        #{alert.iid} {alert.title}
      </h2>
      {alert.description ? <p>{alert.description}</p> : null}
      <section aria-labelledby="alert-overview-heading" className="section">
        <h3 id="alert-overview-heading">Alert details</h3>
        <AlertTriage update={updateAlertStatusAction.bind(null, fullPath)}>
          <DetailsList rows={overview} labelledBy="alert-overview-heading" />
        </AlertTriage>
      </section>
      {links.length > 0 ? (
        <section aria-labelledby="alert-links-heading" className="section">
          <h3 id="alert-links-heading">Links from the source</h3>
          <ul aria-labelledby="alert-links-heading">
            {links.map((link, index) => (
              <li key={index}>
                <a href={link.url} rel="noopener noreferrer nofollow" target="_blank">
                  {link.label}
                </a>{" "}
                <span className="muted">{new URL(link.url).host}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="alert-payload-heading" className="section">
        <h3 id="alert-payload-heading">Full payload</h3>
        <pre className="payload" aria-labelledby="alert-payload-heading" tabIndex={0}>
          {payloadText}
        </pre>
      </section>
      <section aria-labelledby="alert-activity-heading" className="section">
        <h3 id="alert-activity-heading">Activity feed</h3>
        <ol className="activity" aria-labelledby="alert-activity-heading">
          {notes.map((note) => (
            <li key={note.id}>
              <strong>{note.authorName ?? "Deleted user"}</strong>
              {note.authorUsername ? <span className="muted"> @{note.authorUsername}</span> : null} {noteBody(note.body)}
              <span className="muted">
                {" · "}
                <RelativeTime value={note.createdAt} now={ctx.now} />
              </span>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
