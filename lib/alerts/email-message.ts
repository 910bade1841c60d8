/**
 * The alert email as GitLab writes it (`Notify#prometheus_alert_fired_email` and its text view), built from plain
 * data: the subject, GitLab's headers and the text body. Pure, so the exact wording is checked without a mail server.
 */

/**
 * What an email tells: a triggered alert (new, or first mailed about), the recurrences since the last email about it
 * (the digest), or its resolution.
 */
export const alertEmailKinds = ["triggered", "recurred", "resolved"] as const;
export type AlertEmailKind = (typeof alertEmailKinds)[number];

export interface AlertEmailFacts {
  kind: AlertEmailKind;
  /** For a digest: how many times the alert fired since the last email about it. */
  recurrences: number;
  alert: { id: number; iid: number; title: string; description: string | null; environment: string | null };
  project: { id: number; name: string; fullPath: string };
  incident: { id: number; iid: number; url: string } | null;
  detailsUrl: string;
  /** The instance's host name, which the List-Id ends with. */
  host: string;
}

export interface AlertEmail {
  subject: string;
  text: string;
  headers: Record<string, string>;
}

/** Text from a payload goes into headers on one line: a line break there would start a header of the sender's choice. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ");
}

/** GitLab's `email_title`: the environment, when the alert names one, then the title. */
function emailTitle(alert: AlertEmailFacts["alert"]): string {
  return [alert.environment, alert.title].filter((part) => part !== null && part !== "").join(": ");
}

/**
 * GitLab's `create_list_id_string`: `<project id>.<path as a domain, innermost first>.<host>`, at most 255 characters,
 * so mail clients file a project's notifications together.
 */
export function listIdOf(project: AlertEmailFacts["project"], host: string, maxLength = 255): string {
  let domain = project.fullPath
    .toLowerCase()
    .split("/")
    .reverse()
    .join("/")
    .replace(/[^a-z0-9/]/g, "-")
    .replace(/\/+/g, ".")
    .replace(/^\.+|\.+$/g, "");
  const maxDomainLength = maxLength - host.length - String(project.id).length - 2;
  if (maxDomainLength < 3) return `${project.id}...${host}`;
  if (domain.length > maxDomainLength) {
    domain = domain.slice(0, maxDomainLength);
    const lastDot = domain.slice(0, -1).lastIndexOf(".");
    domain = `${domain.slice(0, lastDot === -1 ? maxDomainLength - 2 : lastDot)}..`;
  }
  return `${project.id}.${domain}.${host}`;
}

function recurrenceLine(recurrences: number): string {
  return `Since the last email, it fired ${recurrences === 1 ? "once more" : `${recurrences} more times`}.`;
}

export function alertEmail(facts: AlertEmailFacts): AlertEmail {
  const { alert, project, incident } = facts;
  const resolved = facts.kind === "resolved";
  const paragraphs = [
    [
      `An alert has been ${resolved ? "resolved" : "triggered"} in ${project.fullPath}.`,
      ...(facts.kind === "recurred" ? [recurrenceLine(facts.recurrences)] : []),
      `View alert details at ${facts.detailsUrl}`,
    ].join("\n"),
    ...(alert.description ? [`Description: ${alert.description}`] : []),
    ...(alert.environment ? [`Environment: ${alert.environment}`] : []),
    ...(incident ? [`View incident. ${incident.url}`] : []),
  ];
  const headers: Record<string, string> = {
    "X-GitLab-Project": oneLine(project.name),
    "X-GitLab-Project-Id": String(project.id),
    "X-GitLab-Project-Path": project.fullPath,
    "List-Id": `${project.fullPath} <${listIdOf(project, facts.host)}>`,
    "X-GitLab-Alert-ID": String(alert.id),
    "X-GitLab-Alert-IID": String(alert.iid),
    "X-GitLab-NotificationReason": resolved ? "alert_resolved" : "alert_triggered",
    ...(incident ? { "X-GitLab-Incident-ID": String(incident.id), "X-GitLab-Incident-IID": String(incident.iid) } : {}),
    "Auto-Submitted": "auto-generated",
    "X-Auto-Response-Suppress": "All",
  };
  return { subject: oneLine(`${project.name} | Alert: ${emailTitle(alert)}`), text: `${paragraphs.join("\n\n")}\n`, headers };
}
