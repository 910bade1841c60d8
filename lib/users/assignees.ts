import "server-only";
import { asc, eq, inArray } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";
import type { Executor } from "@/lib/db";
import { users } from "@/lib/db/schema";

/** A table that assigns users to something (an issue, an alert): the thing's id and the user's on each row. */
export interface AssigneeLinks {
  table: PgTable;
  ownerId: AnyPgColumn;
  userId: AnyPgColumn;
}

/**
 * The assignees of each of `ownerIds`, by owner id, in the order of their user ids, read in one statement. `columns`
 * are the columns of `users` the caller answers with, so each keeps its own user shape.
 */
export async function assigneesByOwner<Columns extends Record<string, AnyPgColumn<{ tableName: "users" }>>>(
  db: Executor,
  links: AssigneeLinks,
  ownerIds: readonly number[],
  columns: Columns,
): Promise<Map<number, SelectResultFields<Columns>[]>> {
  const byOwner = new Map<number, SelectResultFields<Columns>[]>();
  if (ownerIds.length === 0) return byOwner;
  const rows = (await db
    .select({ ownerId: links.ownerId, user: columns })
    .from(links.table)
    .innerJoin(users, eq(users.id, links.userId))
    .where(inArray(links.ownerId, [...ownerIds]))
    .orderBy(asc(users.id))) as { ownerId: number; user: SelectResultFields<Columns> }[];
  for (const { ownerId, user } of rows) {
    const assigned = byOwner.get(ownerId);
    if (assigned) assigned.push(user);
    else byOwner.set(ownerId, [user]);
  }
  return byOwner;
}
