import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql, type SQL } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./drivers";
import { violatedUniqueConstraint } from "./errors";
import { pgliteClient, startPgliteThread } from "./pglite-thread";
import { users } from "./schema";

/** Rows of a raw query: both drivers here are postgres.js, which answers an array of objects. */
async function rowsOf(db: Database, query: SQL): Promise<Record<string, unknown>[]> {
  return [...((await db.execute(query)) as Iterable<Record<string, unknown>>)];
}

describe("the embedded database, in a thread of its own", () => {
  const directory = mkdtempSync(path.join(tmpdir(), "pglite-thread-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("keeps the data of a directory PGlite wrote in the server's own thread, and its changes after a reopen", async () => {
    const dataDir = path.join(directory, "existing");
    const direct = new PGlite(dataDir);
    await direct.exec("create table notes (id int primary key, body text not null); insert into notes values (1, 'kept')");
    await direct.close();

    const handle = await openDatabase({ dataDir });
    expect(handle.driver).toBe("pglite");
    expect(await rowsOf(handle.db, sql`select id, body from notes`)).toEqual([{ id: 1, body: "kept" }]);
    await handle.db.execute(sql`insert into notes values (2, 'added')`);
    await handle.close();

    const reopened = await openDatabase({ dataDir });
    expect(await rowsOf(reopened.db, sql`select id from notes order by id`)).toEqual([{ id: 1 }, { id: 2 }]);
    await reopened.close();
  });

  it("migrates, pipelines concurrent queries, keeps a transaction to itself and reports unique violations", async () => {
    const handle = await openDatabase({ dataDir: "memory://" });
    try {
      await handle.migrate();
      const numbers = await Promise.all(Array.from({ length: 50 }, (_, n) => rowsOf(handle.db, sql`select ${n}::int as n`)));
      expect(numbers.map((rows) => rows[0]?.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));

      // A query issued while a transaction runs waits for it, and never sees its rows before the commit.
      const order: string[] = [];
      let outside: Promise<unknown> = Promise.resolve();
      await handle.db.transaction(async (tx) => {
        await tx.insert(users).values({ username: "ann", name: "Ann", email: "ann@example.com", passwordHash: "x" });
        outside = rowsOf(handle.db, sql`select count(*)::int as count from users where username = 'ann'`).then((rows) => {
          order.push("outside");
          return rows[0]?.count;
        });
        await tx.execute(sql`select pg_sleep(0.05)`);
        order.push("transaction");
      });
      expect(await outside).toBe(1);
      expect(order).toEqual(["transaction", "outside"]);

      const duplicate = await handle.db
        .insert(users)
        .values({ username: "ann", name: "Another Ann", email: "another@example.com", passwordHash: "x" })
        .catch((error: unknown) => error);
      expect(violatedUniqueConstraint(duplicate)).toMatch(/username/);

      // A failed transaction rolls back and leaves the connection usable.
      await expect(
        handle.db.transaction(async (tx) => {
          await tx.insert(users).values({ username: "bob", name: "Bob", email: "bob@example.com", passwordHash: "x" });
          await tx.execute(sql`select 1 / 0`);
        }),
      ).rejects.toThrow();
      expect(await rowsOf(handle.db, sql`select username from users order by username`)).toEqual([{ username: "ann" }]);
      expect(await handle.runExclusive(1, async () => "ran")).toBe("ran");
    } finally {
      await handle.close();
    }
  });

  it("fails the queries in flight and reports why when the thread stops, instead of hanging", async () => {
    // A thread that answers the start-up and then dies as the first query arrives.
    const workerFile = path.join(directory, "dying-worker.mjs");
    writeFileSync(
      workerFile,
      `import { parentPort } from "node:worker_threads";
       parentPort.on("message", (message) => {
         if (message.type !== "connect") return;
         message.port.on("message", () => { throw new Error("out of memory"); });
       });
       parentPort.postMessage({ type: "ready" });`,
    );
    const failures: Error[] = [];
    const thread = await startPgliteThread(undefined, (error) => failures.push(error), { workerFile });
    const client = pgliteClient(thread, () => {});
    await expect(client`select 1`).rejects.toThrow(/CONNECTION_CLOSED|The embedded database \(PGlite\) stopped/);
    expect(failures.map((error) => error.message)).toEqual(["The embedded database (PGlite) stopped: out of memory"]);
    await expect(client`select 1`).rejects.toThrow("The embedded database (PGlite) stopped: out of memory");
    await client.end();
    await thread.close();
  });

  it("creates the database of a new directory in a process of its own, and says so when it cannot", async () => {
    const dataDir = path.join(directory, "new");
    const handle = await openDatabase({ dataDir });
    expect(readFileSync(path.join(dataDir, "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
    expect(await rowsOf(handle.db, sql`select current_setting('shared_buffers') as buffers`)).toEqual([{ buffers: "32MB" }]);
    await handle.close();

    // initdb cannot make its `global` directory where a file of that name stands.
    const blocked = path.join(directory, "blocked");
    mkdirSync(blocked);
    writeFileSync(path.join(blocked, "global"), "not a directory");
    await expect(openDatabase({ dataDir: blocked })).rejects.toThrow(`The embedded database could not be created in ${blocked}`);
  });

  it("refuses to start on a directory PGlite cannot open", async () => {
    const dataDir = path.join(directory, "broken");
    const direct = new PGlite(dataDir);
    await direct.close();
    writeFileSync(path.join(dataDir, "PG_VERSION"), "9\n");
    await expect(openDatabase({ dataDir })).rejects.toThrow();
  });
});
