import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { entity, isoDateTime } from "@/lib/api/entities";
import { env } from "@/lib/env";
import { eventTargetTypes, events, namespaces, users } from "@/lib/db/schema";
import { noteEntity } from "@/lib/issues/serialize";
import { userBasicEntity, userBasicSqlFields } from "@/lib/users/serialize";

// Event lists are the hottest read of the API, so PostgreSQL renders each event as GitLab's JSON and the server only
// joins the rows of a page: turning every row into objects and back into JSON cost more than the query itself. The
// page statements that embed this are rendered once per shape (lib/events/query.ts), so it need not be cached here.

/**
 * A JSON object with these keys in this order, compact as `JSON.stringify` writes it (`json_build_object` would put
 * spaces around every colon).
 */
function jsonObject(fields: [key: string, value: SQL][]): SQL {
  const columns = sql.join(
    fields.map(([key, value]) => sql`${value} as ${sql.identifier(key)}`),
    sql`, `,
  );
  return sql`(select row_to_json(o) from (select ${columns}) o)`;
}

/** `Date#toISOString`'s format: UTC with milliseconds, as GitLab writes times. */
function isoTime(column: SQL | typeof events.createdAt): SQL {
  return sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** GitLab's `action_name`: what the activity feed says, which differs from the `action` filter values. */
const actionName = sql`case ${events.action}
    when 'pushed' then case ${events.data}->'push_data'->>'action' when 'created' then 'pushed new' when 'removed' then 'deleted' else 'pushed to' end
    when 'closed' then 'closed'
    when 'merged' then 'accepted'
    when 'joined' then 'joined'
    when 'left' then 'left'
    when 'expired' then 'removed due to membership expiration from'
    when 'destroyed' then 'destroyed'
    when 'commented' then 'commented on'
    when 'approved' then 'approved'
    when 'created' then case when ${events.targetType} is null then 'created' else 'opened' end
    else 'opened' end`;

/** A value of the `push_data` or `note` object recorded with the event, as JSON. */
function recorded(object: "push_data" | "note", key: string): [string, SQL] {
  return [key, sql`${events.data}->${sql.raw(`'${object}'`)}->${sql.raw(`'${key}'`)}`];
}

/** GitLab's PushEventPayload, from the `push_data` recorded with the push. */
const pushData = jsonObject(
  ["commit_count", "action", "ref_type", "commit_from", "commit_to", "ref", "commit_title", "ref_count"].map((key) => recorded("push_data", key)),
);

/** GitLab's Note entity, from the note snapshot recorded with the comment. */
function noteJson(author: SQL): SQL {
  const field = (key: string) => recorded("note", key);
  return jsonObject([
    field("id"),
    ["type", sql`null::text`],
    field("body"),
    ["attachment", sql`null::text`],
    ["author", author],
    field("created_at"),
    field("updated_at"),
    field("system"),
    field("noteable_id"),
    ["noteable_type", sql`'Issue'::text`],
    ["project_id", sql`${events.projectId}`],
    field("internal"),
    field("noteable_iid"),
  ]);
}

/**
 * The group of a group's own event, so a page can name and link it ("joined group Acme / Platform"); the Events API
 * never lists these events, so no GitLab client meets the key.
 */
function groupJson(): SQL {
  const externalUrl = sql.raw(`'${env.EXTERNAL_URL.replaceAll("'", "''")}'::text`);
  return sql`(select row_to_json(g) from (select ${namespaces.id} as id, ${namespaces.name} as name, ${namespaces.fullName} as full_name,
    ${namespaces.fullPath} as full_path, ${externalUrl} || '/groups/' || ${namespaces.fullPath} as web_url
    from ${namespaces} where ${namespaces.id} = ${events.groupId}) g)`;
}

/** A comment event's note, as it was then: the Note entity without what a snapshot does not keep. */
const eventNoteEntity = entity(
  "EventNote",
  "The comment a comment event made, as it was then",
  noteEntity.omit({ resolvable: true, confidential: true, commands_changes: true }).extend({ project_id: z.number().int().nullable() }),
);

const pushDataEntity = entity(
  "PushEventPayload",
  "What a push event pushed",
  z.strictObject({
    commit_count: z.number().int(),
    action: z.enum(["pushed", "created", "removed"]),
    ref_type: z.enum(["branch", "tag"]),
    commit_from: z.string().nullable(),
    commit_to: z.string().nullable(),
    ref: z.string().nullable(),
    commit_title: z.string().nullable(),
    ref_count: z.number().int().nullable(),
  }),
);

/**
 * GitLab's Event entity. Rendered by PostgreSQL (`eventJson`), so no serializer's type holds it to this schema: the
 * e2e servers' response check does.
 */
export const eventEntity = entity(
  "Event",
  "An event of the Events API; `push_data` on pushes, `note` on comments",
  z.strictObject({
    id: z.number().int(),
    title: z.null(),
    project_id: z.number().int().nullable(),
    action_name: z.string(),
    target_id: z.number().int().nullable(),
    target_iid: z.number().int().nullable(),
    target_type: z.enum(eventTargetTypes).nullable(),
    author_id: z.number().int(),
    target_title: z.string().nullable(),
    created_at: isoDateTime,
    author: userBasicEntity,
    push_data: pushDataEntity.optional(),
    note: eventNoteEntity.optional(),
    /** Only on a group's own events, which the Events API does not list. */
    group: z.strictObject({ id: z.number().int(), name: z.string(), full_name: z.string(), full_path: z.string(), web_url: z.string() }).optional(),
    author_username: z.string(),
  }),
);

/**
 * An event as GitLab's Events API shows it, as JSON text, for a query over `events` joined to its author in `users`.
 * `push_data` and `note` appear only on push and comment events, `group` only on a group's own events.
 */
export function eventJson(): SQL<string> {
  const author = jsonObject(userBasicSqlFields());
  const eventWith = (extra: [string, SQL][]) =>
    jsonObject([
      ["id", sql`${events.id}`],
      ["title", sql`null::text`],
      ["project_id", sql`${events.projectId}`],
      ["action_name", actionName],
      ["target_id", sql`${events.targetId}`],
      ["target_iid", sql`${events.targetIid}`],
      ["target_type", sql`${events.targetType}`],
      ["author_id", sql`${events.authorId}`],
      ["target_title", sql`${events.targetTitle}`],
      ["created_at", isoTime(events.createdAt)],
      ["author", author],
      ...extra,
      ["author_username", sql`${users.username}`],
    ]);
  return sql<string>`(case
    when ${events.action} = 'pushed' and jsonb_typeof(${events.data}->'push_data') = 'object' then ${eventWith([["push_data", pushData]])}
    when ${events.action} = 'commented' and jsonb_typeof(${events.data}->'note') = 'object' then ${eventWith([["note", noteJson(author)]])}
    when ${events.groupId} is not null then ${eventWith([["group", groupJson()]])}
    else ${eventWith([])}
  end)::text`;
}
