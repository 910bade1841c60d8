import "server-only";
import { and, asc, desc, eq, inArray, isNotNull, lt, lte, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { entity, isoDateTime } from "@/lib/api/entities";
import type { PageRequest } from "@/lib/api/pagination";
import { actingUser, type Ctx } from "@/lib/context";
import { listPage, placeholder, preparedStatements, type Database, type Executor, type ListPage } from "@/lib/db";
import { statementRows } from "@/lib/db/statement-rows";
import { alertIntegrations, alerts, alertSilences, users, type AlertSilenceRow, type UserRow } from "@/lib/db/schema";
import { BadRequestError, NotFoundError } from "@/lib/errors";
import { alertChatNotifications, projectTakesAlertChat } from "@/lib/integrations/alert-notifications";
import { getProjectWithAbility, type ProjectView } from "@/lib/projects/projects";
import { getAlertBot } from "./bot";
import { enqueueAlertEmail } from "./email";
import { openIncident } from "./incidents";
import { projectWithNamespace } from "./process";
import { addSystemNote } from "./system-notes";
import { readAlertSettings } from "./settings";
import { forgetProjectSilences, liveSilencesOf } from "./silence-cache";
import {
  anchoredPattern,
  equalitiesOf,
  formatMatcher,
  matcherVerdict,
  nextWindowAfter,
  openWindowAt,
  parseMatchers,
  SilenceRuleError,
  silenceStateAt,
  validRecurrence,
  weekdays,
  type MatchableAlert,
  type SilenceMatcher,
  type SilenceWindow,
  type WeeklyRecurrence,
} from "./silence-rules";
import { alertDetailsUrl } from "./urls";

/**
 * Silences (maintenance windows) and what they hold back. An alert a silence matches while it is open is recorded as
 * any other, but marked (`alerts.silenced_by_id`) and given a time to look again (`alerts.notify_after`: the end of the
 * window); it opens no incident and notifies nobody. A snooze holds one alert the same way. Housekeeping looks again
 * when that time comes (`releaseHeldAlerts`): an alert still triggered and held by nothing then notifies once. All of
 * it is in the database, so any replica may look, after any restart, and looking twice notifies once.
 */

/** What a silence is saved from: matchers as texts, and a one-off window or a weekly one. */
export interface SilenceInput {
  matchers: string | string[];
  startsAt?: Date | null;
  endsAt?: Date | null;
  recurrence?: WeeklyRecurrence | null;
  reason: string;
}

export interface SilenceView {
  silence: AlertSilenceRow;
  authorUsername: string | null;
}

function silenceWindow(row: Pick<AlertSilenceRow, "startsAt" | "endsAt" | "recurrence">): SilenceWindow {
  if (row.recurrence) return { startsAt: null, endsAt: null, recurrence: row.recurrence };
  if (!row.startsAt || !row.endsAt) throw new Error("a one-off silence without its window (the check constraint holds it)");
  return { startsAt: row.startsAt, endsAt: row.endsAt, recurrence: null };
}

/** The reason's bound: a line or a paragraph, not a document. */
const maxReasonLength = 1000;

/**
 * A silence as saved: matchers parsed and their patterns compiled by the database that will run them (so a pattern
 * PostgreSQL refuses is refused here, naming its matcher), and exactly one kind of window. One-off windows start
 * now when no start is given.
 */
async function validated(db: Executor, input: SilenceInput, now: Date) {
  let matchers: SilenceMatcher[];
  let recurrence: WeeklyRecurrence | null = null;
  try {
    matchers = parseMatchers(input.matchers);
    if (input.recurrence) recurrence = validRecurrence(input.recurrence);
  } catch (error) {
    if (error instanceof SilenceRuleError) throw new BadRequestError(error.message);
    throw error;
  }
  for (const matcher of matchers) {
    if (matcher.op !== "=~" && matcher.op !== "!~") continue;
    try {
      await db.execute(sql`select '' ~ ${anchoredPattern(matcher.value)}`);
    } catch {
      throw new BadRequestError(`matcher ${JSON.stringify(formatMatcher(matcher))} has a pattern that is not a valid regular expression`);
    }
  }
  const reason = input.reason.trim();
  if (reason === "") throw new BadRequestError("reason is required");
  if (reason.length > maxReasonLength) throw new BadRequestError(`reason is longer than ${maxReasonLength} characters`);
  if (recurrence) {
    if (input.startsAt || input.endsAt) throw new BadRequestError("a recurring silence takes no starts_at or ends_at");
    return { matchers, equalities: equalitiesOf(matchers), recurrence, startsAt: null, endsAt: null, reason };
  }
  if (!input.endsAt) throw new BadRequestError("ends_at or recurrence is required");
  const startsAt = input.startsAt ?? now;
  if (input.endsAt.getTime() <= startsAt.getTime()) throw new BadRequestError("ends_at must be after starts_at");
  if (input.endsAt.getTime() <= now.getTime()) throw new BadRequestError("ends_at must be in the future");
  return { matchers, equalities: equalitiesOf(matchers), recurrence: null, startsAt, endsAt: input.endsAt, reason };
}

function selectSilences(ctx: Ctx) {
  return ctx.db.select({ silence: alertSilences, authorUsername: users.username }).from(alertSilences).leftJoin(users, eq(users.id, alertSilences.authorId));
}

async function findSilence(ctx: Ctx, view: ProjectView, silenceId: number): Promise<SilenceView> {
  const [row] = await selectSilences(ctx).where(and(eq(alertSilences.projectId, view.project.id), eq(alertSilences.id, silenceId)));
  if (!row) throw new NotFoundError("Silence");
  return row;
}

/** `GET …/alert_management/silences` (Reporter+): newest first. */
export async function listSilences(ctx: Ctx, projectReference: string, page: PageRequest): Promise<ListPage<SilenceView> & { view: ProjectView }> {
  const view = await getProjectWithAbility(ctx, projectReference, "readAlerts");
  const inProject = eq(alertSilences.projectId, view.project.id);
  const rows = selectSilences(ctx).where(inProject).orderBy(desc(alertSilences.id)).$dynamic();
  const list = await listPage(ctx.db, page, rows, ctx.db.select({ one: sql`1` }).from(alertSilences).where(inProject).$dynamic());
  return { ...list, view };
}

/** `GET …/silences/:silence_id` (Reporter+). */
export async function getSilence(ctx: Ctx, projectReference: string, silenceId: number): Promise<SilenceView> {
  const view = await getProjectWithAbility(ctx, projectReference, "readAlerts");
  return findSilence(ctx, view, silenceId);
}

/** `POST …/alert_management/silences` (Maintainer+). */
export async function createSilence(ctx: Ctx, projectReference: string, input: SilenceInput): Promise<SilenceView> {
  const view = await getProjectWithAbility(ctx, projectReference, "manageAlertSilences");
  const values = await validated(ctx.db, input, ctx.now);
  const author = actingUser(ctx);
  const [silence] = await ctx.db
    .insert(alertSilences)
    .values({ projectId: view.project.id, ...values, authorId: author?.id ?? null, createdAt: ctx.now, updatedAt: ctx.now })
    .returning();
  if (!silence) throw new Error("inserting a silence returned no row");
  forgetProjectSilences(ctx.db, view.project.id);
  return { silence, authorUsername: author?.username ?? null };
}

/**
 * The alerts a silence holds are looked at again at once (the next housekeeping pass) when it changes or goes: a
 * changed silence may no longer match them or be open, and they notify then unless something still holds them.
 */
async function reconsiderAlertsOf(tx: Executor, silenceId: number, now: Date): Promise<void> {
  await tx.update(alerts).set({ notifyAfter: now }).where(and(eq(alerts.silencedById, silenceId), isNotNull(alerts.notifyAfter)));
}

/** `PUT …/silences/:silence_id` (Maintainer+): the whole silence is given again, as on creation. */
export async function updateSilence(ctx: Ctx, projectReference: string, silenceId: number, input: SilenceInput): Promise<SilenceView> {
  const view = await getProjectWithAbility(ctx, projectReference, "manageAlertSilences");
  const existing = await findSilence(ctx, view, silenceId);
  const values = await validated(ctx.db, input, ctx.now);
  const updated = await ctx.db.transaction(async (tx) => {
    const [silence] = await tx.update(alertSilences).set({ ...values, updatedAt: ctx.now }).where(eq(alertSilences.id, existing.silence.id)).returning();
    if (!silence) throw new NotFoundError("Silence");
    await reconsiderAlertsOf(tx, silence.id, ctx.now);
    return { silence, authorUsername: existing.authorUsername };
  });
  forgetProjectSilences(ctx.db, view.project.id);
  return updated;
}

/** `DELETE …/silences/:silence_id` (Maintainer+): the alerts it held notify at the next housekeeping pass. */
export async function deleteSilence(ctx: Ctx, projectReference: string, silenceId: number): Promise<void> {
  const view = await getProjectWithAbility(ctx, projectReference, "manageAlertSilences");
  const existing = await findSilence(ctx, view, silenceId);
  await ctx.db.transaction(async (tx) => {
    await reconsiderAlertsOf(tx, existing.silence.id, ctx.now);
    await tx.delete(alertSilences).where(eq(alertSilences.id, existing.silence.id));
  });
  forgetProjectSilences(ctx.db, view.project.id);
}

const silenceWindowEntity = z.strictObject({ starts_at: isoDateTime, ends_at: isoDateTime });

export const silenceEntity = entity(
  "Silence",
  "A maintenance window: alerts its matchers match while it is active open no incident and notify nobody",
  z.strictObject({
    id: z.number().int(),
    project_id: z.number().int(),
    matchers: z.array(z.string()),
    starts_at: isoDateTime.nullable(),
    ends_at: isoDateTime.nullable(),
    recurrence: z
      .strictObject({ days: z.array(z.enum(weekdays)), start_time: z.string(), end_time: z.string(), time_zone: z.string() })
      .nullable(),
    reason: z.string(),
    author: z.strictObject({ id: z.number().int().nullable(), username: z.string() }).nullable(),
    state: z.enum(["active", "pending", "expired"]),
    current_window: silenceWindowEntity.nullable(),
    next_window: silenceWindowEntity.nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  }),
);

export function serializeSilence({ silence, authorUsername }: SilenceView, now: Date): z.infer<typeof silenceEntity> {
  const window = silenceWindow(silence);
  const open = openWindowAt(window, now);
  const next = open ? null : nextWindowAfter(window, now);
  return {
    id: silence.id,
    project_id: silence.projectId,
    matchers: silence.matchers.map(formatMatcher),
    starts_at: silence.startsAt?.toISOString() ?? null,
    ends_at: silence.endsAt?.toISOString() ?? null,
    recurrence: silence.recurrence,
    reason: silence.reason,
    author: authorUsername === null ? null : { id: silence.authorId, username: authorUsername },
    state: silenceStateAt(window, now),
    /** The open window's end, or the next window's start and end: when the state changes next. */
    current_window: open ? { starts_at: open.start.toISOString(), ends_at: open.end.toISOString() } : null,
    next_window: next ? { starts_at: next.start.toISOString(), ends_at: next.end.toISOString() } : null,
    created_at: silence.createdAt.toISOString(),
    updated_at: silence.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

/** An alert's fields as SQL, for matchers to read. */
interface MatchedFields {
  integrationName: SQL;
  integrationId: SQL;
  service: SQL;
  environment: SQL;
  severity: SQL;
  title: SQL;
  monitoringTool: SQL;
  hosts: SQL;
  payload: SQL;
  /** The one-valued fields as one jsonb object as `equalities` are written (a missing field is the empty string). */
  oneValued: SQL;
}

/**
 * The fields of the alert row `alias` (the `alerts` table's column names: a stored alert, or the incoming one as the
 * same columns) and of its integration's name, in one place for both the receiver and housekeeping.
 */
function matchedFields(alias: SQL, integrationName: SQL): MatchedFields {
  const column = (name: string) => sql`${alias}.${sql.identifier(name)}`;
  return {
    integrationName,
    integrationId: column("integration_id"),
    service: column("service"),
    environment: column("environment"),
    severity: column("severity"),
    title: column("title"),
    monitoringTool: column("monitoring_tool"),
    hosts: column("hosts"),
    payload: column("payload"),
    oneValued: sql`jsonb_build_object('service', coalesce(${column("service")}, ''), 'environment', coalesce(${column("environment")}, ''),
      'severity', ${column("severity")}, 'title', ${column("title")}, 'monitoring_tool', coalesce(${column("monitoring_tool")}, ''))`,
  };
}

/**
 * Whether every matcher of `matchers` (a silence's jsonb list) matches the alert, in SQL: a missing field reads as the
 * empty string (Alertmanager's missing label), `integration` is its name or its id, `host` any of the hosts, and a
 * pattern is matched anchored. PostgreSQL's engine runs the patterns (none with back-references or lookaround, which
 * saving refuses), in the database's process or thread, so no pattern can hold the server's event loop. The
 * silence's equalities are tested first: one containment refuses most silences without reading their matchers.
 * `matcherVerdict` (`silence-rules.ts`) reads the fields the same way in process, for all but the patterns.
 */
function matchersHold(matchers: SQL, f: MatchedFields): SQL {
  const pattern = sql`case when m.value like '(?i)%' then '(?i)^(?:' || substr(m.value, 5) || ')$' else '^(?:' || m.value || ')$' end`;
  return sql`s.equalities <@ ${f.oneValued} and not exists (
    select 1 from jsonb_to_recordset(${matchers}) as m(name text, op text, value text)
    cross join lateral (select case
        when m.name = 'integration' then array[coalesce(${f.integrationName}, ''), coalesce(${f.integrationId}::text, '')]
        when m.name = 'host' then case when cardinality(${f.hosts}) = 0 then array['']::text[] else ${f.hosts} end
        when m.name like 'payload.%' then array[coalesce(${f.payload} #>> string_to_array(substr(m.name, 9), '.'), '')]
        else array[coalesce(case m.name when 'service' then ${f.service} when 'environment' then ${f.environment}
          when 'severity' then ${f.severity} when 'title' then ${f.title} when 'monitoring_tool' then ${f.monitoringTool} end, '')]
      end as vals) v
    where not (case m.op
      when '=' then m.value = any(v.vals)
      when '!=' then not (m.value = any(v.vals))
      when '=~' then exists (select 1 from unnest(v.vals) x where x ~ ${pattern})
      else not exists (select 1 from unnest(v.vals) x where x ~ ${pattern}) end))`;
}

/** Silences of the project that have not ended (by the `(project_id, ends_at)` index) and have started. */
function silencesNotOver(projectId: SQL, now: SQL): SQL {
  return sql`s.project_id = ${projectId} and (s.ends_at is null or s.ends_at > ${now}) and (s.starts_at is null or s.starts_at <= ${now})`;
}

type MatchedSilence = Pick<AlertSilenceRow, "id" | "startsAt" | "endsAt" | "recurrence"> & { version: string };

/**
 * The silence that holds an alert, until when, and the version of the silence's row that was matched (its `xmin`):
 * `recordFiring` writes the hold only while the row is still that version.
 */
export interface SilenceHold {
  silenceId: number;
  until: Date;
  version: string;
}

/** Of the silences that match, the one whose open window ends last, and that end; null when none is open. */
function longestHold(silences: MatchedSilence[], now: Date): SilenceHold | null {
  let best: SilenceHold | null = null;
  for (const silence of silences) {
    const open = openWindowAt(silenceWindow(silence), now);
    if (open && (!best || open.end > best.until)) best = { silenceId: silence.id, until: open.end, version: silence.version };
  }
  return best;
}

const asDate = (value: string | Date | null) => (value === null ? null : new Date(value));

function matchedSilence(row: Record<string, unknown>): MatchedSilence {
  return {
    id: Number(row.id),
    startsAt: asDate(row.starts_at as string | null),
    endsAt: asDate(row.ends_at as string | null),
    recurrence: row.recurrence as WeeklyRecurrence | null,
    version: String(row.version),
  };
}

/** What ingestion knows of a firing alert, for the silences to match. */
export interface FiringFields extends MatchableAlert {
  projectId: number;
}

/**
 * The matching silences of a firing alert, one statement per shape rendered once per process: the alert is a row of
 * the `alerts` table's columns that the matchers read (the payload sent once). `among` limits it to the silences the
 * cache could not decide alone; without it every silence of the project is matched.
 */
const matchingSilencesStatements = preparedStatements<{ among: boolean }, Record<string, unknown>>(
  ({ among }) => sql`with a as (select ${placeholder("integrationName")}::text as integration_name, ${placeholder("integrationId")}::int as integration_id,
        ${placeholder("service")}::text as service, ${placeholder("environment")}::text as environment, ${placeholder("severity")}::text as severity,
        ${placeholder("title")}::text as title, ${placeholder("monitoringTool")}::text as monitoring_tool,
        ${placeholder("hosts", alerts.hosts)}::text[] as hosts, ${placeholder("payload", alerts.payload)}::jsonb as payload)
      select s.id, s.starts_at, s.ends_at, s.recurrence, s.xmin::text as version from ${alertSilences} s, a
      where ${silencesNotOver(sql`${placeholder("projectId")}::int`, sql`${placeholder("now")}::timestamptz`)}
        ${among ? sql`and s.id = any(${placeholder("among")}::int[])` : sql``}
        and ${matchersHold(sql`s.matchers`, matchedFields(sql`a`, sql`a.integration_name`))}`,
);

/** The silences of `among` (all of the project's when null) that match the firing alert, asked of the database. */
async function silencesMatchingFiring(db: Executor, alert: FiringFields, now: Date, among: number[] | null): Promise<MatchedSilence[]> {
  const rows = await matchingSilencesStatements(db, { among: among !== null }, {
    projectId: alert.projectId,
    integrationName: alert.integration.name,
    integrationId: alert.integration.id,
    service: alert.service,
    environment: alert.environment,
    severity: alert.severity,
    title: alert.title,
    monitoringTool: alert.monitoringTool,
    hosts: alert.hosts,
    payload: alert.payload,
    among,
    now: now.toISOString(),
  });
  return rows.map(matchedSilence);
}

/**
 * The silence that holds a firing alert at `now`, and until when. From this process's copy of the project's silences
 * (`lib/alerts/silence-cache.ts`) when it has one: each silence whose window is open and whose other matchers hold
 * (`matcherVerdict`) matches, unless it has matchers only the database may decide (patterns, some payload values),
 * and only those candidates are asked of the database, in one statement; an alert no silence could match costs no
 * statement. Without a copy, one indexed statement matches all of the project's silences.
 */
export async function silenceHolding(db: Database, alert: FiringFields, now: Date): Promise<SilenceHold | null> {
  const silences = await liveSilencesOf(db, alert.projectId, now);
  if (!silences) return longestHold(await silencesMatchingFiring(db, alert, now, null), now);
  const matched: MatchedSilence[] = [];
  const undecided: number[] = [];
  for (const silence of silences) {
    let decided = true;
    let holds = true;
    for (const matcher of silence.matchers) {
      const verdict = matcherVerdict(matcher, alert);
      if (verdict === "fails") {
        holds = false;
        break;
      }
      if (verdict === "database") decided = false;
    }
    // The window last: most silences fail a matcher first, and a weekly window's time-zone reading costs the most.
    if (!holds || !openWindowAt(silenceWindow(silence), now)) continue;
    if (decided) matched.push(silence);
    else undecided.push(silence.id);
  }
  if (undecided.length > 0) matched.push(...(await silencesMatchingFiring(db, alert, now, undecided)));
  return longestHold(matched, now);
}

/** The silences that match each of these alerts now, read from the alerts' own rows in one statement. */
async function silencesMatchingAlerts(db: Executor, alertIds: number[], now: Date): Promise<Map<number, MatchedSilence[]>> {
  const matched = new Map<number, MatchedSilence[]>();
  if (alertIds.length === 0) return matched;
  const rows = statementRows<Record<string, unknown>>(
    await db.execute(sql`select al.id as alert_id, s.id, s.starts_at, s.ends_at, s.recurrence, s.xmin::text as version
      from ${alerts} al
      left join ${alertIntegrations} i on i.id = al.integration_id
      join ${alertSilences} s on ${silencesNotOver(sql`al.project_id`, sql`${now.toISOString()}::timestamptz`)}
        and ${matchersHold(sql`s.matchers`, matchedFields(sql`al`, sql`i.name`))}
      where al.id = any(${sql.param(alertIds)}::int[])`),
  );
  for (const row of rows) {
    const alertId = Number(row.alert_id);
    matched.set(alertId, [...(matched.get(alertId) ?? []), matchedSilence(row)]);
  }
  return matched;
}

// ---------------------------------------------------------------------------------------------------------------
// Releasing held alerts

/** How many due alerts one transaction of `releaseHeldAlerts` takes, and how many transactions one pass runs at most. */
const releaseBatchSize = 100;
const maxReleaseBatches = 50;

/**
 * Housekeeping's look at alerts whose held notification is due (`notify_after` passed): one still held (snoozed, or
 * matched by a silence open now) waits for that hold's end; one no longer triggered is let go quietly; any other is
 * released (no silence, no snooze) and notifies once, as a new alert would: an email, chat, and its incident when the
 * project opens incidents and it has none. Due rows are claimed with `for update skip locked` and their time cleared
 * in the same transaction, so replicas share the work and nothing notifies twice. Answers the ids released and held.
 */
export async function releaseHeldAlerts(db: Database, now: Date): Promise<{ released: number[]; held: number[] }> {
  const released: number[] = [];
  const held: number[] = [];
  const bot = await getAlertBot(db);
  for (let batch = 0; batch < maxReleaseBatches; batch++) {
    const result = await db.transaction(async (tx) => {
      const due = await tx
        .select({
          id: alerts.id,
          projectId: alerts.projectId,
          status: alerts.status,
          snoozedUntil: alerts.snoozedUntil,
          snoozedUntilResolved: alerts.snoozedUntilResolved,
          silencedById: alerts.silencedById,
          issueId: alerts.issueId,
        })
        .from(alerts)
        .where(and(isNotNull(alerts.notifyAfter), lte(alerts.notifyAfter, now)))
        .orderBy(asc(alerts.notifyAfter))
        .limit(releaseBatchSize)
        .for("update", { skipLocked: true });
      const matched = await silencesMatchingAlerts(
        tx,
        due.filter((alert) => alert.status === "triggered").map((alert) => alert.id),
        now,
      );
      for (const alert of due) {
        if (alert.status !== "triggered") {
          await tx.update(alerts).set({ notifyAfter: null }).where(eq(alerts.id, alert.id));
          continue;
        }
        if (alert.snoozedUntilResolved) {
          // Held until it resolves or someone ends the snooze (which sets the time again).
          await tx.update(alerts).set({ notifyAfter: null }).where(eq(alerts.id, alert.id));
          continue;
        }
        const silence = longestHold(matched.get(alert.id) ?? [], now);
        const snoozed = alert.snoozedUntil && alert.snoozedUntil > now ? alert.snoozedUntil : null;
        const until = [silence?.until, snoozed].filter((time): time is Date => !!time).sort((a, b) => b.getTime() - a.getTime())[0];
        if (until) {
          await tx.update(alerts).set({ notifyAfter: until, silencedById: silence?.silenceId ?? null }).where(eq(alerts.id, alert.id));
          held.push(alert.id);
          continue;
        }
        await notifyReleased(tx, alert, bot, now);
        released.push(alert.id);
      }
      return due.length;
    });
    if (result < releaseBatchSize) break;
  }
  return { released, held };
}

async function notifyReleased(
  tx: Executor,
  alert: { id: number; projectId: number },
  bot: UserRow,
  now: Date,
): Promise<void> {
  const [row] = await tx
    .update(alerts)
    .set({ notifyAfter: null, silencedById: null, snoozedUntil: null })
    .where(eq(alerts.id, alert.id))
    .returning();
  if (!row) return;
  await addSystemNote(tx, alert.id, "notified of this alert: it is no longer silenced or snoozed and still triggered", now, bot.id);
  const settings = await readAlertSettings(tx, alert.projectId);
  if (await projectTakesAlertChat(tx, alert.projectId)) await alertChatNotifications(tx, { projectId: alert.projectId, alertId: alert.id, now });
  await enqueueAlertEmail(tx, settings, row, "fired", now);
  if (!settings.createIncident || row.issueId !== null) return;
  const project = await projectWithNamespace(tx, alert.projectId);
  await openIncident(tx, project, row, bot, alertDetailsUrl(project, row), now);
}

// ---------------------------------------------------------------------------------------------------------------
// Pruning

/** How long a one-off silence is kept once its window has ended: Alertmanager's default retention (`--data.retention`). */
export const expiredSilenceRetentionHours = 120;

/** How many silences one statement of `pruneExpiredSilences` deletes, and how many statements one pass runs at most. */
const pruneBatchSize = 500;
const maxPruneBatches = 20;

/**
 * Housekeeping: deletes the one-off silences whose window ended more than the retention ago, oldest first, in
 * batches through `alert_silences_expired_idx` (weekly silences never end). Alerts that name one forget it (the
 * foreign key sets `silenced_by_id` null), so their pages and the API say nothing silenced them; a silence's hold ends
 * with its window, long before, so no alert still waits on one, and an alert whose release was never looked at is due
 * and is released at the next pass as before. Each process's copy of the project's silences hears of it through the
 * trigger. Answers how many were deleted.
 */
export async function pruneExpiredSilences(db: Database, now: Date): Promise<{ deleted: number }> {
  const before = new Date(now.getTime() - expiredSilenceRetentionHours * 3_600_000);
  let deleted = 0;
  for (let batch = 0; batch < maxPruneBatches; batch++) {
    const expired = db
      .select({ id: alertSilences.id })
      .from(alertSilences)
      .where(and(isNotNull(alertSilences.endsAt), lt(alertSilences.endsAt, before)))
      .orderBy(asc(alertSilences.endsAt))
      .limit(pruneBatchSize);
    const rows = await db.delete(alertSilences).where(inArray(alertSilences.id, expired)).returning({ id: alertSilences.id });
    deleted += rows.length;
    if (rows.length < pruneBatchSize) break;
  }
  return { deleted };
}

/** The silences of these ids, for alert pages that say which silence matched. */
export async function silencesByIds(db: Executor, projectId: number, ids: number[]): Promise<Map<number, AlertSilenceRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select().from(alertSilences).where(and(eq(alertSilences.projectId, projectId), inArray(alertSilences.id, ids)));
  return new Map(rows.map((row) => [row.id, row]));
}
