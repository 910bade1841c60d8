import "server-only";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type PostgresClient from "postgres";
import * as schema from "./schema";

/** The one database type every domain verb takes; both drivers produce it. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** A verb that must run inside its caller's transaction takes this. */
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  driver: "postgres" | "pglite";
  migrate(): Promise<void>;
  close(): Promise<void>;
  /**
   * Runs `job` only if no other process holds the lock `key` (a PostgreSQL session advisory lock, held on a connection
   * of its own while the job runs); resolves undefined without running it otherwise. PGlite serves one process, so
   * there the job always runs.
   */
  runExclusive<T>(key: number, job: () => Promise<T>): Promise<T | undefined>;
  /**
   * Hands `listener` every NOTIFY on `channel`, this process's own included; resolves once listening. A notification
   * sent while the listening connection is down is lost, so `interrupted` says when that starts and `listening` when
   * notifications flow again (first after start-up, then after each reconnection). On PGlite, where this process is
   * the only one, notifications are delivered before the notifying statement (or its transaction's COMMIT) resolves.
   */
  listen(channel: string, listener: NotificationListener): Promise<void>;
  /**
   * Runs `job` in one read-only REPEATABLE READ transaction, so all it reads is one snapshot of the whole database, with
   * the raw driver (postgres.js) for what drizzle does not do (`COPY … TO STDOUT`). On PostgreSQL on a connection of
   * its own, outside the pool, so the service goes on meanwhile; on PGlite on its one connection, which every other
   * query waits for until the job ends.
   */
  readSnapshot<T>(job: (sql: PostgresClient.TransactionSql) => Promise<T>): Promise<T>;
}

export interface NotificationListener {
  notify(payload: string): void;
  listening(): void;
  interrupted(): void;
}

export type DatabaseOptions =
  /**
   * PostgreSQL: a postgres:// URL and how many connections to open; `listenUrl` reaches the same database for LISTEN
   * when `url` goes through a pooler that cannot keep one.
   */
  | { url: string; poolSize: number; listenUrl?: string }
  /**
   * The embedded PGlite: its data directory, or "memory://" for a throwaway database. It runs in a thread of its own;
   * should that thread stop, its queries fail and `onFailure` (by default: throw, which ends the process) is told why.
   * `image` starts a new database as a copy of one PGlite dumped (`PgliteThreadOptions.image`).
   */
  | { dataDir: string; onFailure?: (error: Error) => void; image?: string };

const migrationsFolder = path.join(process.cwd(), "drizzle");
// Any fixed number works; it only has to be the same for every replica so migrations run one at a time.
const migrationLockKey = 727_001;

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if ("url" in options) return openPostgres(options.url, options.poolSize, options.listenUrl ?? options.url);
  return openPglite(options.dataDir, options.onFailure ?? throwFailure, options.image);
}

/**
 * The service's connections run with PostgreSQL's JIT compilation off (a session setting, whatever the server's
 * default). Its statements read a page through indexes, yet a capped count or a list over a large table is *estimated*
 * above `jit_above_cost`, and compiling it then costs 50–100 ms against the few milliseconds the statement itself
 * takes.
 */
async function openPostgres(url: string, poolSize: number, listenUrl: string): Promise<DatabaseHandle> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const client = postgres(url, { max: poolSize, onnotice: () => {}, connection: { jit: "off" } });
  const db = drizzle({ client: preparingStatements(client), schema });
  const listeners = postgresListeners(postgres, listenUrl);
  return {
    db,
    driver: "postgres",
    async migrate() {
      // The driver's docs require a single connection for migrations; the advisory lock makes replicas take turns.
      const { migrate } = await import("drizzle-orm/postgres-js/migrator");
      const migrationClient = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await migrationClient`select pg_advisory_lock(${migrationLockKey})`;
        await migrate(drizzle({ client: migrationClient }), { migrationsFolder });
        await migrationClient`select pg_advisory_unlock(${migrationLockKey})`;
      } finally {
        await migrationClient.end();
      }
    },
    listen: listeners.listen,
    async readSnapshot<T>(job: (sql: PostgresClient.TransactionSql) => Promise<T>): Promise<T> {
      const connection = postgres(url, { max: 1, onnotice: () => {} });
      try {
        return await inSnapshot(connection, job);
      } finally {
        await connection.end();
      }
    },
    async close() {
      await listeners.close();
      await client.end();
    },
    async runExclusive<T>(key: number, job: () => Promise<T>): Promise<T | undefined> {
      const reserved = await client.reserve();
      try {
        const [row] = await reserved`select pg_try_advisory_lock(${key}) as locked`;
        if (!row?.locked) return undefined;
        try {
          return await job();
        } finally {
          await reserved`select pg_advisory_unlock(${key})`;
        }
      } finally {
        reserved.release();
      }
    },
  };
}

/**
 * PGlite runs in a worker thread (lib/db/pglite-thread.ts) and the server reaches it as it reaches PostgreSQL: postgres.js
 * over the wire protocol, with prepared statements, so its query work leaves the thread that answers requests. One
 * connection, because PGlite has one session: postgres.js pipelines queries on it, and a transaction has it to itself
 * while the queries of other requests wait.
 */
async function openPglite(dataDir: string, onFailure: (error: Error) => void, image: string | undefined): Promise<DatabaseHandle> {
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { pgliteClient, startPgliteThread } = await import("./pglite-thread");
  const inMemory = dataDir.startsWith("memory://");
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const thread = await startPgliteThread(inMemory ? undefined : path.resolve(dataDir), onFailure, { image });
  // PGlite has one session, so a NOTIFY reaches the listener on the server's one connection, as it commits.
  const listeners = new Map<string, NotificationListener[]>();
  const client = pgliteClient(thread, (channel, payload) => listeners.get(channel)?.forEach((listener) => listener.notify(payload)));
  const db = drizzle({ client: preparingStatements(client), schema });
  return {
    db,
    driver: "pglite",
    async migrate() {
      const { migrate } = await import("drizzle-orm/postgres-js/migrator");
      await migrate(drizzle({ client }), { migrationsFolder });
    },
    async close() {
      await client.end();
      await thread.close();
    },
    runExclusive: (_key, job) => job(),
    readSnapshot: (job) => inSnapshot(client, job),
    async listen(channel, listener) {
      if (!listeners.has(channel)) await client.unsafe(`listen "${channel.replaceAll('"', '""')}"`);
      listeners.set(channel, [...(listeners.get(channel) ?? []), listener]);
      listener.listening();
    },
  };
}

/** `readSnapshot`'s transaction: pg_dump's own choice, one snapshot for every statement, writing nothing. */
async function inSnapshot<T>(client: PostgresClient.Sql, job: (sql: PostgresClient.TransactionSql) => Promise<T>): Promise<T> {
  // The driver's type would unwrap an array of promises the job returned; a job here returns its value.
  return (await client.begin("isolation level repeatable read read only", job)) as T;
}

const relistenDelayMs = 1000;

/**
 * LISTEN on a connection of its own that is never recycled. postgres.js reconnects on the next query after a
 * connection drops, so a dropped connection tells each listener it was interrupted and then LISTENs again (retrying
 * every second while the server is unreachable) before telling them they are listening again.
 */
function postgresListeners(postgres: typeof PostgresClient, url: string) {
  const byChannel = new Map<string, NotificationListener[]>();
  let closing = false;
  let relistening: Promise<void> | null = null;
  // `onnotify` is the connection option postgres.js builds its own `listen()` on (which cannot report a dropped
  // connection, nor retry while the server is away); its types leave it out.
  const options: PostgresClient.Options<Record<string, never>> & { onnotify(channel: string, payload: string): void } = {
    max: 1,
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => {},
    onnotify: (channel, payload) => byChannel.get(channel)?.forEach((listener) => listener.notify(payload)),
    onclose: () => {
      if (closing || byChannel.size === 0) return;
      byChannel.forEach((listeners) => listeners.forEach((listener) => listener.interrupted()));
      relistening ??= relistenAll().finally(() => (relistening = null));
    },
  };
  const connection = postgres(url, options);
  const listenOn = (channel: string) => connection.unsafe(`listen "${channel.replaceAll('"', '""')}"`);
  async function relistenAll(): Promise<void> {
    while (!closing) {
      try {
        for (const channel of byChannel.keys()) await listenOn(channel);
        byChannel.forEach((listeners) => listeners.forEach((listener) => listener.listening()));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, relistenDelayMs));
      }
    }
  }
  return {
    async listen(channel: string, listener: NotificationListener): Promise<void> {
      if (!byChannel.has(channel)) await listenOn(channel);
      byChannel.set(channel, [...(byChannel.get(channel) ?? []), listener]);
      listener.listening();
    },
    async close(): Promise<void> {
      closing = true;
      await connection.end();
    },
  };
}

function throwFailure(error: Error): never {
  throw error;
}

/**
 * drizzle sends every query as an unnamed statement, so PostgreSQL parses and plans it on every request. Asking the
 * driver to prepare them makes it keep one prepared statement per query text and connection, which the hot paths
 * (token lookups, event pages, the receiver, and the writes) reuse. That holds inside transactions too (`begin` and
 * `savepoint` hand drizzle a client that prepares in turn): planning a write's statements again on every request
 * would lengthen the time it holds a project's counter row, which every other write numbering in that project waits
 * for. Behind PgBouncer use session pooling, or transaction pooling with prepared-statement support (PgBouncer 1.21+
 * `max_prepared_statements`).
 */
function preparingStatements<Client extends { unsafe: (...args: never[]) => unknown }>(client: Client): Client {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === "unsafe") {
        const unsafe = value as (query: string, params?: unknown[], options?: object) => unknown;
        return (query: string, params?: unknown[], options?: object) => unsafe.call(target, query, params ?? [], { ...options, prepare: true });
      }
      if ((property === "begin" || property === "savepoint") && typeof value === "function") {
        // Both take an optional mode or name and then the callback that receives the transaction's client.
        return (...args: unknown[]) => {
          const job = args.at(-1) as (transaction: Client) => unknown;
          return value.call(target, ...args.slice(0, -1), (transaction: Client) => job(preparingStatements(transaction)));
        };
      }
      return value;
    },
  });
}
