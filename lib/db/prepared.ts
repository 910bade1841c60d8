import "server-only";
import { sql, type Column, type Query, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Database, Executor } from "./drivers";

// drizzle renders a query's SQL text every time it runs, and on the hot paths (the token lookup, the alert
// receiver) that rendering costs more than PostgreSQL takes to run the query. The helpers below render once and then
// only fill in the values, passed as `sql.placeholder(name)`.

/**
 * A query-builder query prepared once per database handle (the handle is one per process), for queries that run
 * outside transactions: `const byId = preparedQuery((db) => db.select()…where(eq(t.id, sql.placeholder("id"))).prepare("t_by_id"))`,
 * then `await byId(db).execute({ id })`.
 */
export function preparedQuery<Prepared>(prepare: (db: Database) => Prepared): (db: Database) => Prepared {
  const perDatabase = new WeakMap<Database, Prepared>();
  return (db) => {
    let prepared = perDatabase.get(db);
    if (!prepared) {
      prepared = prepare(db);
      perDatabase.set(db, prepared);
    }
    return prepared;
  };
}

const dialect = new PgDialect();

/**
 * A hand-written statement (one the query builder cannot express, such as several data-modifying CTEs), rendered
 * once; it runs on any executor, a transaction included, and answers its rows as objects.
 */
export function preparedStatement<Row>(statement: () => SQL): (db: Executor, values: Record<string, unknown>) => Promise<Row[]> {
  let query: Query | undefined;
  return async (db, values) => {
    query ??= dialect.sqlToQuery(statement());
    const result = (await db._.session.prepareQuery(query, undefined, undefined, false).execute(values)) as Row[] | { rows: Row[] };
    // postgres-js answers with an array, PGlite with `{ rows }`.
    return Array.isArray(result) ? result : result.rows;
  };
}

/** A value filled in at run time; with a column, encoded as that column encodes it (timestamps, arrays, JSON). */
export function placeholder(name: string, column?: Column) {
  return column ? sql.param(sql.placeholder(name), column) : sql.placeholder(name);
}

/**
 * A LIMIT written into the statement's text rather than sent as a parameter. PostgreSQL plans a prepared statement
 * once (its generic plan) unless that plan looks costlier than planning for the given values, and a LIMIT parameter
 * always makes it look so: the statement would then be planned again on every execution, which for the event pages
 * took longer than running them. Page sizes are few, so the texts stay few.
 */
export function literalLimit(rows: number): number {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`not a row count: ${rows}`);
  // drizzle embeds an SQL object given as the limit as it is; its type only admits numbers and placeholders.
  return sql.raw(String(rows)) as unknown as number;
}
