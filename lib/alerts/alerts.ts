import "server-only";
import { and, asc, eq, ilike, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { entity, isoDateTime } from "@/lib/api/entities";
import { actingUser, type Ctx } from "@/lib/context";
import { cappedCount, keyedListPage, type ListPage, type OrderKey } from "@/lib/db";
import { violatedUniqueConstraint } from "@/lib/db/errors";
import { containsPattern } from "@/lib/db/like";
import { alertNotes, alerts, issues, users, type AlertNoteRow, type AlertRow } from "@/lib/db/schema";
import { BadRequestError, ConflictError, NotFoundError, UnauthorizedError } from "@/lib/errors";
import type { PageRequest } from "@/lib/api/pagination";
import { getProjectWithAbility, type ProjectView } from "@/lib/projects/projects";
import { serializeUserBasic, userBasicEntity, type UserSummary } from "@/lib/users/serialize";
import { assignedToUsername, assigneesOfAlerts, replaceAlertAssignees, resolveAlertAssignees, type AssigneeReference } from "./assignees";
import { alertSeverities, alertStatuses, type AlertStatus } from "./fields";
import { sourceLinks } from "./formats/registry";
import { payloadFormats, type SourceLink } from "./formats/types";
import { openIncident } from "./incidents";
import { displayedJson } from "./json-values";
import { unresolvedWithFingerprint } from "./process";
import { addSystemNote } from "./system-notes";
import { silencesByIds } from "./silences";
import { alertDetailsUrl } from "./urls";

export const alertSorts = ["started_at_desc", "started_at_asc", "severity_desc", "event_count_desc"] as const;
export type AlertSort = (typeof alertSorts)[number];

export interface AlertListFilters {
  status?: AlertStatus[];
  search?: string;
  /** Only alerts assigned the user of this name (GitLab's `assigneeUsername`). */
  assigneeUsername?: string;
  /** Only alerts a silence matched (true), or only the others (false). */
  silenced?: boolean;
  sort?: AlertSort;
}

// Severity order for sorting: critical first.
const severityRank = sql`case ${alerts.severity} when 'critical' then 0 when 'high' then 1 when 'medium' then 2 when 'low' then 3 when 'info' then 4 else 5 end`;

/**
 * The sorts as order keys. By start time, each status is read in order from `alerts_project_status_idx` (or all of
 * them from `alerts_project_started_idx`); by severity or event count the project's matching alerts are sorted, as no
 * index keeps those orders (an index on the event count would cost every repeated alert an index update).
 */
const orderings: Record<AlertSort, OrderKey[]> = {
  started_at_desc: [
    { value: alerts.startedAt, descending: true },
    { value: alerts.id, descending: true },
  ],
  started_at_asc: [
    { value: alerts.startedAt, descending: false },
    { value: alerts.id, descending: false },
  ],
  severity_desc: [
    { value: severityRank, descending: false },
    { value: alerts.startedAt, descending: true },
    { value: alerts.id, descending: true },
  ],
  event_count_desc: [
    { value: alerts.eventCount, descending: true },
    { value: alerts.startedAt, descending: true },
    { value: alerts.id, descending: true },
  ],
};

/** `GET …/alert_management/alerts` (Reporter+). */
export async function listAlerts(
  ctx: Ctx,
  projectReference: string,
  filters: AlertListFilters,
  page: PageRequest,
): Promise<ListPage<AlertWithIncident> & { view: ProjectView }> {
  const view = await getProjectWithAbility(ctx, projectReference, "readAlerts");
  return { view, ...(await alertPage(ctx, view, filters, page)) };
}

function searchCondition(search: string): SQL {
  const pattern = containsPattern(search);
  return or(ilike(alerts.title, pattern), ilike(alerts.description, pattern), ilike(alerts.monitoringTool, pattern), ilike(alerts.service, pattern))!;
}

/** The filters but the status, as one condition over `alerts`: the list reads it per status, the tabs count with it. */
function listCondition(view: ProjectView, filters: AlertListFilters): SQL | undefined {
  return and(
    eq(alerts.projectId, view.project.id),
    filters.search ? searchCondition(filters.search) : undefined,
    filters.assigneeUsername ? assignedToUsername(filters.assigneeUsername) : undefined,
    filters.silenced === undefined ? undefined : filters.silenced ? isNotNull(alerts.silencedById) : isNull(alerts.silencedById),
  );
}

async function alertPage(ctx: Ctx, view: ProjectView, filters: AlertListFilters, page: PageRequest): Promise<ListPage<AlertWithIncident>> {
  const inProject = listCondition(view, filters);
  // One part per status asked for, each read in order from its own range of the status index.
  const parts = filters.status && filters.status.length > 0 ? filters.status.map((status) => and(inProject, eq(alerts.status, status))) : [inProject];
  const order = orderings[filters.sort ?? "started_at_desc"];
  const listed = await keyedListPage(ctx.db, page, {
    order,
    branches: (keys) => parts.map((part) => ctx.db.select(keys).from(alerts).where(part).$dynamic()),
    rows: (pageKeys, key) =>
      ctx.db
        .select({ alert: alerts, issueIid: issues.iid })
        .from(pageKeys)
        .innerJoin(alerts, sql`${alerts.id} = ${key(order.length - 1)}`)
        .leftJoin(issues, eq(issues.id, alerts.issueId))
        .$dynamic(),
  });
  return { ...listed, items: await withAssignees(ctx, listed.items) };
}

/** The rows with their assignees, read for all of them at once. */
async function withAssignees(ctx: Ctx, rows: { alert: AlertRow; issueIid: number | null }[]): Promise<AlertWithIncident[]> {
  const assignees = await assigneesOfAlerts(
    ctx.db,
    rows.map((row) => row.alert.id),
  );
  return rows.map((row) => ({ ...row, assignees: assignees.get(row.alert.id) ?? [] }));
}

/** How many alerts `where` finds in each status, each counted no further than `countLimit` (null: more). */
async function statusCounts(ctx: Ctx, where: SQL | undefined): Promise<Record<AlertStatus, number | null>> {
  const counts = await Promise.all(
    alertStatuses.map(async (status) => [status, await cappedCount(ctx.db, ctx.db.select({ one: sql`1` }).from(alerts).where(and(where, eq(alerts.status, status))).$dynamic())] as const),
  );
  return Object.fromEntries(counts) as Record<AlertStatus, number | null>;
}

/**
 * The alert list page (Reporter+): a page of alerts as `listAlerts` reads it, and how many alerts matching the search
 * each status has, for the status tabs (null past `countLimit`, as list totals).
 */
export async function listAlertsWithStatusCounts(
  ctx: Ctx,
  projectReference: string,
  filters: AlertListFilters,
  page: PageRequest,
): Promise<ListPage<AlertWithIncident> & { view: ProjectView; statusCounts: Record<AlertStatus, number | null> }> {
  const view = await getProjectWithAbility(ctx, projectReference, "readAlerts");
  const [list, counts] = await Promise.all([
    alertPage(ctx, view, filters, page),
    statusCounts(ctx, listCondition(view, filters)),
  ]);
  return { ...list, view, statusCounts: counts };
}

/** An alert with the #iid of its incident, if it has one, and its assignees. */
export interface AlertWithIncident {
  alert: AlertRow;
  issueIid: number | null;
  assignees: UserSummary[];
}

export interface AlertDetails extends AlertWithIncident {
  view: ProjectView;
  /** The payload as the page shows it (`displayedJson`). */
  payloadText: string;
  /** The links the source sent with the alert (its rule, dashboard, the event in the tool). */
  links: SourceLink[];
  notes: (AlertNoteRow & { authorUsername: string | null; authorName: string | null })[];
  /** The silence that matched the alert, while it is marked silenced. */
  silence: { id: number; reason: string } | null;
}

async function findAlert(ctx: Ctx, view: ProjectView, iid: number): Promise<Omit<AlertWithIncident, "assignees">> {
  const [row] = await ctx.db
    .select({ alert: alerts, issueIid: issues.iid })
    .from(alerts)
    .leftJoin(issues, eq(issues.id, alerts.issueId))
    .where(and(eq(alerts.projectId, view.project.id), eq(alerts.iid, iid)));
  if (!row) throw new NotFoundError("Alert");
  return row;
}

/** `GET …/alerts/:alert_iid` (Reporter+), with the alert's history. */
export async function getAlert(ctx: Ctx, projectReference: string, iid: number): Promise<AlertDetails> {
  const view = await getProjectWithAbility(ctx, projectReference, "readAlerts");
  const { alert, issueIid } = await findAlert(ctx, view, iid);
  const [assignees, notes, silences] = await Promise.all([assigneesOfAlerts(ctx.db, [alert.id]), ctx.db
    .select({ note: alertNotes, authorUsername: users.username, authorName: users.name })
    .from(alertNotes)
    .leftJoin(users, eq(users.id, alertNotes.authorId))
    .where(eq(alertNotes.alertId, alert.id))
    .orderBy(asc(alertNotes.id)), silencesByIds(ctx.db, view.project.id, alert.silencedById === null ? [] : [alert.silencedById])]);
  const silence = alert.silencedById === null ? undefined : silences.get(alert.silencedById);
  return {
    view,
    alert,
    issueIid,
    assignees: assignees.get(alert.id) ?? [],
    links: sourceLinks(alert.payloadFormat, alert.payload),
    payloadText: displayedJson(alert.payload, maxDisplayedPayloadCharacters),
    notes: notes.map((row) => ({ ...row.note, authorUsername: row.authorUsername, authorName: row.authorName })),
    silence: silence ? { id: silence.id, reason: silence.reason } : null,
  };
}

/** The alert's page indents a payload whose indented form takes at most this many characters (1 MiB). */
export const maxDisplayedPayloadCharacters = 1024 * 1024;

const fingerprintAlreadyOpen =
  "An alert with the same fingerprint is already open. To change the status of this alert, resolve the linked alert.";

const statusLabels: Record<AlertStatus, string> = {
  triggered: "Triggered",
  acknowledged: "Acknowledged",
  resolved: "Resolved",
  ignored: "Ignored",
};

/** What `PUT …/alerts/:alert_iid` changes; what is left out stays as it is. */
export interface AlertChanges {
  status?: AlertStatus;
  /** The assignees, replacing the alert's (GitLab's `alertSetAssignees` in `REPLACE` mode); empty unassigns. */
  assignees?: AssigneeReference[];
  snooze?: AlertSnooze;
}

/** Holding one alert's notifications: for a number of minutes, until it resolves, or no longer. */
export type AlertSnooze = { minutes: number } | { untilResolved: true } | { off: true };

/** The shortest and longest snooze, in minutes: half an hour to a week. */
export const snoozeMinutesRange = { min: 30, max: 10_080 } as const;

/**
 * What a snooze writes. A timed snooze holds the alert's notifications until its end (`notify_after`, when
 * housekeeping looks again); one until resolved holds them with no end; ending one makes the held notification due at
 * once, so an alert still triggered notifies once, as when a snooze runs out.
 */
function snoozeValues(snooze: AlertSnooze, alert: AlertRow, now: Date): { values: Partial<AlertRow>; note: string } | null {
  if ("minutes" in snooze) {
    const until = new Date(now.getTime() + snooze.minutes * 60_000);
    return { values: { snoozedUntil: until, snoozedUntilResolved: false, notifyAfter: until }, note: `snoozed notifications until ${until.toISOString()}` };
  }
  if ("untilResolved" in snooze) {
    return { values: { snoozedUntil: null, snoozedUntilResolved: true, notifyAfter: null }, note: "snoozed notifications until the alert resolves" };
  }
  const snoozed = alert.snoozedUntilResolved || (alert.snoozedUntil !== null && alert.snoozedUntil > now);
  if (!snoozed) return null;
  return { values: { snoozedUntil: null, snoozedUntilResolved: false, notifyAfter: now }, note: "ended the snooze" };
}

/**
 * `PUT …/alerts/:alert_iid` (Developer+): triage and assignment, in one transaction, each change with its system note.
 * Resolving stamps the end time; any other status clears it. An alert cannot be reopened while another open alert has
 * its fingerprint (GitLab's rule). Assignees are checked before anything is written (`resolveAlertAssignees`).
 */
export async function updateAlert(ctx: Ctx, projectReference: string, iid: number, changes: AlertChanges): Promise<AlertWithIncident & { view: ProjectView }> {
  const view = await getProjectWithAbility(ctx, projectReference, "triageAlerts");
  const { alert, issueIid } = await findAlert(ctx, view, iid);
  const status = changes.status !== undefined && changes.status !== alert.status ? changes.status : undefined;
  if (status !== undefined && alert.status === "resolved" && alert.fingerprint) {
    const [openTwin] = await ctx.db
      .select({ id: alerts.id })
      .from(alerts)
      .where(unresolvedWithFingerprint(view.project.id, alert.fingerprint));
    if (openTwin) throw new ConflictError(fingerprintAlreadyOpen);
  }
  const assignees = changes.assignees === undefined ? undefined : await resolveAlertAssignees(ctx.db, view, changes.assignees, ctx.now);
  if (changes.snooze && !("off" in changes.snooze) && (status ?? alert.status) === "resolved") throw new BadRequestError("A resolved alert cannot be snoozed.");
  const snooze = changes.snooze === undefined ? null : snoozeValues(changes.snooze, alert, ctx.now);
  if (status === undefined && assignees === undefined && snooze === null) return { view, alert, issueIid, assignees: (await assigneesOfAlerts(ctx.db, [alert.id])).get(alert.id) ?? [] };
  const actorId = actingUser(ctx)?.id ?? null;
  // The check above can race another reopening or a new alert; the unique index on open fingerprints decides then.
  try {
    return await ctx.db.transaction(async (tx) => {
      let updated = alert;
      if (status !== undefined) {
        updated = updatedRow(
          await tx
            .update(alerts)
            .set({ status, endedAt: status === "resolved" ? ctx.now : null, ...(status === "resolved" ? { snoozedUntilResolved: false } : {}), updatedAt: ctx.now })
            .where(eq(alerts.id, alert.id))
            .returning(),
        );
        await addSystemNote(tx, alert.id, `changed the status to **${statusLabels[status]}**`, ctx.now, actorId);
      }
      if (assignees !== undefined) {
        const note = await replaceAlertAssignees(tx, alert.id, assignees);
        if (note !== null) {
          updated = updatedRow(await tx.update(alerts).set({ updatedAt: ctx.now }).where(eq(alerts.id, alert.id)).returning());
          await addSystemNote(tx, alert.id, note, ctx.now, actorId);
        }
      }
      if (snooze !== null) {
        updated = updatedRow(await tx.update(alerts).set({ ...snooze.values, updatedAt: ctx.now }).where(eq(alerts.id, alert.id)).returning());
        await addSystemNote(tx, alert.id, snooze.note, ctx.now, actorId);
      }
      const current = (await assigneesOfAlerts(tx, [alert.id])).get(alert.id) ?? [];
      return { view, alert: updated, issueIid, assignees: current };
    });
  } catch (error) {
    if (violatedUniqueConstraint(error) === "alerts_open_fingerprint_key") throw new ConflictError(fingerprintAlreadyOpen);
    throw error;
  }
}

/** The alert an update returned; none means it was deleted meanwhile (with its project). */
function updatedRow([row]: AlertRow[]): AlertRow {
  if (!row) throw new NotFoundError("Alert");
  return row;
}

/** Triage alone, as the status controls of the alert pages change it (Developer+). */
export async function updateAlertStatus(ctx: Ctx, projectReference: string, iid: number, status: AlertStatus): Promise<AlertWithIncident & { view: ProjectView }> {
  return updateAlert(ctx, projectReference, iid, { status });
}

/** Assignment alone, as the alert's page changes it (Developer+): `assignees` replace the alert's, none unassigns. */
export async function setAlertAssignees(
  ctx: Ctx,
  projectReference: string,
  iid: number,
  assignees: AssigneeReference[],
): Promise<AlertWithIncident & { view: ProjectView }> {
  return updateAlert(ctx, projectReference, iid, { assignees });
}

/**
 * Opens an incident for an alert that has none (Developer+), authored by the person who asks, and notes it in the
 * alert's history as GitLab does.
 */
export async function createAlertIncident(ctx: Ctx, projectReference: string, iid: number): Promise<{ view: ProjectView; issueIid: number }> {
  const view = await getProjectWithAbility(ctx, projectReference, "triageAlerts");
  const actor = actingUser(ctx);
  if (!actor) throw new UnauthorizedError();
  const { alert } = await findAlert(ctx, view, iid);
  if (alert.issueId !== null) throw new ConflictError(incidentAlreadyExists);
  return ctx.db.transaction(async (tx) => {
    // Claims the alert first, so two concurrent requests cannot both open an incident for it.
    const [unclaimed] = await tx.select({ id: alerts.id }).from(alerts).where(and(eq(alerts.id, alert.id), isNull(alerts.issueId))).for("update");
    if (!unclaimed) throw new ConflictError(incidentAlreadyExists);
    const { issueIid } = await openIncident(tx, view, alert, actor, alertDetailsUrl(view, alert), ctx.now);
    return { view, issueIid };
  });
}

const incidentAlreadyExists = "An incident already exists for this alert.";

export const alertEntity = entity(
  "Alert",
  "An alert of a project's alert management, with the payload it was last received with",
  z.strictObject({
    id: z.number().int(),
    iid: z.number().int(),
    project_id: z.number().int(),
    integration_id: z.number().int().nullable(),
    title: z.string(),
    description: z.string().nullable(),
    severity: z.enum(alertSeverities),
    status: z.enum(alertStatuses),
    started_at: isoDateTime,
    ended_at: isoDateTime.nullable(),
    monitoring_tool: z.string().nullable(),
    service: z.string().nullable(),
    hosts: z.array(z.string()),
    environment: z.string().nullable(),
    fingerprint: z.string().nullable(),
    event_count: z.number().int(),
    /** The payload as the monitoring tool sent it. */
    payload: z.unknown(),
    payload_format: z.enum(payloadFormats).nullable(),
    source_links: z.array(z.strictObject({ label: z.string(), url: z.string() })),
    issue_iid: z.number().int().nullable(),
    assignees: z.array(userBasicEntity),
    silenced_by: z.number().int().nullable(),
    snoozed_until: isoDateTime.nullable(),
    snoozed_until_resolved: z.boolean(),
    details_url: z.string(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  }),
);

export function serializeAlert(view: ProjectView, { alert, issueIid, assignees }: AlertWithIncident): z.infer<typeof alertEntity> {
  return {
    id: alert.id,
    iid: alert.iid,
    project_id: alert.projectId,
    integration_id: alert.integrationId,
    title: alert.title,
    description: alert.description,
    severity: alert.severity,
    status: alert.status,
    started_at: alert.startedAt.toISOString(),
    ended_at: alert.endedAt?.toISOString() ?? null,
    monitoring_tool: alert.monitoringTool,
    service: alert.service,
    hosts: alert.hosts,
    environment: alert.environment,
    fingerprint: alert.fingerprint,
    event_count: alert.eventCount,
    payload: alert.payload,
    payload_format: alert.payloadFormat,
    source_links: sourceLinks(alert.payloadFormat, alert.payload),
    issue_iid: issueIid,
    assignees: assignees.map(serializeUserBasic),
    silenced_by: alert.silencedById,
    snoozed_until: alert.snoozedUntil?.toISOString() ?? null,
    snoozed_until_resolved: alert.snoozedUntilResolved,
    details_url: alertDetailsUrl(view, alert),
    created_at: alert.createdAt.toISOString(),
    updated_at: alert.updatedAt.toISOString(),
  };
}

export { alertStatuses };
