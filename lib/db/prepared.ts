import "server-only";
import { sql, type Column, type Placeholder, type Query, type SQL, type SQLWrapper } from "drizzle-orm";
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

/**
 * `preparedQuery` for a family of queries whose text depends on a few choices (`shape`, plain data): each shape is
 * prepared once per database handle. Values that vary per request are placeholders, never part of the shape.
 */
export function preparedQueries<Shape, Prepared>(prepare: (db: Database, shape: Shape) => Prepared): (db: Database, shape: Shape) => Prepared {
  const perDatabase = new WeakMap<Database, Map<string, Prepared>>();
  return (db, shape) => {
    let byShape = perDatabase.get(db);
    if (!byShape) perDatabase.set(db, (byShape = new Map()));
    const key = JSON.stringify(shape);
    let prepared = byShape.get(key);
    if (!prepared) {
      prepared = prepare(db, shape);
      byShape.set(key, prepared);
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

/**
 * A family of hand-written statements whose text depends on a few choices (which filters are present, the page
 * size…): `statement(shape)` is rendered once per distinct shape, and every request of that shape only fills in the
 * values. Shapes must be plain data; write values that vary per request as placeholders, never into the shape.
 */
export function preparedStatements<Shape, Row>(
  statement: (shape: Shape) => SQL,
): (db: Executor, shape: Shape, values: Record<string, unknown>) => Promise<Row[]> {
  const byShape = new Map<string, (db: Executor, values: Record<string, unknown>) => Promise<Row[]>>();
  return (db, shape, values) => {
    const key = JSON.stringify(shape);
    let run = byShape.get(key);
    if (!run) {
      run = preparedStatement<Row>(() => statement(shape));
      byShape.set(key, run);
    }
    return run(db, values);
  };
}

/**
 * A number written into the statement's text. PostgreSQL plans a prepared statement once for all values only when
 * that plan is about as cheap as one made for the values at hand, and it can fold a literal while planning (`40 >= 20`
 * is true, a branch that is never taken costs nothing) but not a parameter. For constants (access levels) and LIMITs
 * (a LIMIT parameter makes every execution plan again, which took longer than running the event pages).
 */
export function literal(value: number): SQL {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return sql.raw(String(value));
}

/** A value filled in at run time; with a column, encoded as that column encodes it (timestamps, arrays, JSON). */
export function placeholder(name: string): Placeholder;
export function placeholder(name: string, column: Column): SQLWrapper;
export function placeholder(name: string, column?: Column): Placeholder | SQLWrapper {
  return column ? sql.param(sql.placeholder(name), column) : sql.placeholder(name);
}

/**
 * Runs `read` in a read transaction whose statements are planned for their values every time (`plan_cache_mode =
 * force_custom_plan`, for that transaction only). Every statement that takes values is prepared
 * (`preparingStatements`, drivers.ts), and after five runs on a connection PostgreSQL may keep one plan for any values
 * (a generic plan, chosen from estimates for average values). For a statement whose good plan depends on its values
 * that plan reads whole tables: a viewer's role looked up per row, whose index condition on the viewer's groups the
 * value-blind plan drops, or an offset it cannot see. The cost is the transaction's two round trips and a planning per
 * run.
 */
export async function withCustomPlans<T>(db: Database, read: (tx: Database) => Promise<T>): Promise<T> {
  return db.transaction(
    async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_custom_plan`);
      return read(tx);
    },
    { accessMode: "read only" },
  );
}
