import { z } from "zod";

/**
 * The entities the API answers with, by GitLab's names. Each is the zod schema its serializer's return type is
 * inferred from, so the two cannot drift apart; the OpenAPI document names each once (`#/components/schemas/<id>`)
 * and the e2e servers hold every answer to its route's schema (`API_RESPONSE_CHECK`).
 */
export const apiEntities = z.registry<{ id: string; description?: string }>();

/** Names a schema as an entity of the API. */
export function entity<Schema extends z.ZodType>(id: string, description: string, schema: Schema): Schema {
  apiEntities.add(schema, { id, description });
  return schema;
}

/** A time as `Date#toISOString` writes it, as GitLab writes times (UTC, milliseconds). */
export const isoDateTime = entity("DateTime", "A time in UTC, as ISO 8601 (`2026-01-31T12:00:00.000Z`)", z.iso.datetime());

/** A calendar day (`due_date`, `expires_at`). */
export const isoDate = entity("Date", "A day, as ISO 8601 (`2026-01-31`)", z.iso.date());
