import "server-only";
import { sql, type Column, type Query, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Database, Executor } from "./drivers";

// drizzle renders a query's SQL text every time it runs, and on the hot paths (token lookups, event pages, the alert
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
