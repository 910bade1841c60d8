import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { openDatabase, type DatabaseHandle } from "@/lib/db/drivers";
import { outboxMessages } from "@/lib/db/schema";
import { statementRows } from "@/lib/db/statement-rows";
import { createPostgresDatabase, databaseForSuite, testDatabases } from "@/lib/testing/databases";
import { uniqueSuffix } from "@/lib/testing/fixtures";
import {
  completeMessage,
  completeMessages,
  enqueueMessages,
  enqueueSelected,
  leaseMessages,
  pruneMessages,
  releaseMessages,
  rescheduleMessage,
  type LeasedMessage,
} from "./outbox";
import { OutboxWorker } from "./worker";

const leaseMs = 60_000;

describe.each(testDatabases())("the outbox on $name", ({ open }) => {
  const handle = databaseForSuite(open);

  /** A topic of the test's own, so tests do not see each other's messages. */
  const topic = () => `test-${uniqueSuffix()}`;

  it("hands out only the oldest message of each ordering key, and the next once it is completed", async () => {
    const t = topic();
    await enqueueMessages(handle.db, [
      { topic: t, orderingKey: `${t}:a`, payload: { n: 1 } },
      { topic: t, orderingKey: `${t}:b`, payload: { n: 2 } },
      { topic: t, orderingKey: `${t}:a`, payload: { n: 3 } },
    ]);
    const now = new Date(Date.now() + 1000);
    const first = await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now });
    expect(first.map((message) => message.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(first.map((message) => message.attempts)).toEqual([1, 1]);
    // Both heads are leased: nothing else is due, not even the second message of `a`.
    expect(await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now })).toEqual([]);
    expect(await completeMessage(handle.db, first[0]!)).toBe(true);
    const second = await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now });
    expect(second.map((message) => message.payload)).toEqual([{ n: 3 }]);
  });

  it("finds a key's head behind more queued messages of a held key than it looks at, by walking the keys", async () => {
    const t = topic();
    await enqueueMessages(
      handle.db,
      Array.from({ length: 10 }, (_, n) => ({ topic: t, orderingKey: `${t}:slow`, payload: { n } })),
    );
    await enqueueMessages(handle.db, [{ topic: t, orderingKey: `${t}:quick`, payload: { n: 10 } }]);
    const now = new Date(Date.now() + 1000);
    const [slowHead] = await leaseMessages(handle.db, { topics: [t], limit: 1, leaseMs, now, scanWindow: 4 });
    expect(slowHead).toMatchObject({ orderingKey: `${t}:slow`, payload: { n: 0 } });
    // The four oldest due messages all wait behind the held head; the quick key's head comes after them.
    const behind = await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now, scanWindow: 4 });
    expect(behind.map((message) => [message.orderingKey, message.payload])).toEqual([[`${t}:quick`, { n: 10 }]]);
    expect(await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now, scanWindow: 4 })).toEqual([]);
    expect(await completeMessage(handle.db, slowHead!)).toBe(true);
    const next = await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now, scanWindow: 4 });
    expect(next.map((message) => message.payload)).toEqual([{ n: 1 }]);
  });

  it("writes a fan-out's shared body once, leases it with each message, and deletes it with the last one", async () => {
    const t = topic();
    const fanOut = (keys: string[]) =>
      sql.join(
        keys.map((key) => sql`select ${t}::text, ${`${t}:${key}`}::text, jsonb_build_object('key', ${key}::text)`),
        sql` union all `,
      );
    const bodies = async () => Number(statementRows<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from outbox_bodies b
      where exists (select 1 from outbox_messages m where m.body_id = b.id and m.topic = ${t})`))[0]!.n);
    expect(await handle.db.transaction((tx) => enqueueSelected(tx, fanOut(["a", "b", "c"]), '{"kept":"in order"}'))).toBe(3);
    // A query that selects nothing writes no body.
    expect(await enqueueSelected(handle.db, sql`select * from (${fanOut(["d"])}) nothing where false`, "unused")).toBe(0);
    const [stored] = statementRows<{ messages: number; bodies: number }>(await handle.db.execute(sql`
      select count(*)::int as messages, count(distinct body_id)::int as bodies from outbox_messages where topic = ${t}`));
    expect(stored).toEqual({ messages: 3, bodies: 1 });

    const leased = await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now: new Date(Date.now() + 1000) });
    expect(leased.map((message) => [message.payload, message.body])).toEqual([
      [{ key: "a" }, '{"kept":"in order"}'],
      [{ key: "b" }, '{"kept":"in order"}'],
      [{ key: "c" }, '{"kept":"in order"}'],
    ]);
    expect(await completeMessage(handle.db, leased[0]!)).toBe(true);
    expect(await completeMessage(handle.db, leased[1]!)).toBe(true);
    expect(await bodies()).toBe(1);
    const [lastBodyId] = statementRows<{ body_id: number }>(await handle.db.execute(sql`select body_id from outbox_messages where id = ${leased[2]!.id}`));
    expect(await completeMessage(handle.db, leased[2]!)).toBe(true);
    const [left] = statementRows<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from outbox_bodies where id = ${lastBodyId!.body_id}`));
    expect(left).toEqual({ n: 0 });
  });

  it("prunes a body no message needs any more", async () => {
    const [orphan] = statementRows<{ id: number }>(await handle.db.execute(sql`insert into outbox_bodies (body) values ('left behind') returning id`));
    await pruneMessages(handle.db, { before: new Date(0) });
    const [left] = statementRows<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from outbox_bodies where id = ${orphan!.id}`));
    expect(left).toEqual({ n: 0 });
  });

  it("keeps a rescheduled message, and every message behind it, until it is due; only the lease holder may act", async () => {
    const t = topic();
    await enqueueMessages(handle.db, [
      { topic: t, orderingKey: `${t}:k`, payload: { n: 1 } },
      { topic: t, orderingKey: `${t}:k`, payload: { n: 2 } },
    ]);
    const now = new Date(Date.now() + 1000);
    const [leased] = await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now });
    const later = new Date(now.getTime() + 30_000);
    expect(await rescheduleMessage(handle.db, { ...leased!, leaseToken: "not-the-holder" }, { availableAt: later, error: "x" })).toBe(false);
    expect(await rescheduleMessage(handle.db, leased!, { availableAt: later, error: "HTTP 500" })).toBe(true);
    expect(await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now: new Date(later.getTime() - 1) })).toEqual([]);
    const [again] = await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now: later });
    expect(again).toMatchObject({ id: leased!.id, payload: { n: 1 }, attempts: 2 });
    expect(await completeMessage(handle.db, leased!)).toBe(false);
    const [row] = await handle.db.select().from(outboxMessages).where(sql`${outboxMessages.id} = ${leased!.id}`);
    expect(row).toMatchObject({ lastError: "HTTP 500", attempts: 2 });
  });

  it("hands a run topic's head out with the due messages right behind it, up to the run's length, and no further than the first not due", async () => {
    const t = topic();
    const single = topic();
    const now = new Date(Date.now() + 1000);
    await enqueueMessages(handle.db, [
      ...Array.from({ length: 4 }, (_, n) => ({ topic: t, orderingKey: `${t}:long`, payload: { n } })),
      { topic: t, orderingKey: `${t}:gap`, payload: { n: 10 } },
      { topic: t, orderingKey: `${t}:gap`, payload: { n: 11 }, availableAt: new Date(now.getTime() + 60_000) },
      { topic: t, orderingKey: `${t}:gap`, payload: { n: 12 } },
      { topic: single, orderingKey: `${single}:k`, payload: { n: 20 } },
      { topic: single, orderingKey: `${single}:k`, payload: { n: 21 } },
    ]);
    const runs = { topics: [t], length: 3 };
    const leased = await leaseMessages(handle.db, { topics: [t, single], limit: 10, leaseMs, now, runs });
    const byKey = (key: string) => leased.filter((message) => message.orderingKey === key).map((message) => message.payload);
    expect(byKey(`${t}:long`)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    // The run stops at the message that is not due yet: the one behind it never goes before it.
    expect(byKey(`${t}:gap`)).toEqual([{ n: 10 }]);
    // Topics outside `runs` still go one message at a time.
    expect(byKey(`${single}:k`)).toEqual([{ n: 20 }]);
    expect(new Set(leased.map((message) => message.leaseToken)).size).toBe(1);
    expect(leased.map((message) => message.attempts)).toEqual(leased.map(() => 1));
    // The run's followers are held with their head: nothing more of the long key until the run is done with.
    expect(await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now, runs })).toEqual([]);

    const long = leased.filter((message) => message.orderingKey === `${t}:long`);
    expect(await completeMessages(handle.db, [{ ...long[0]!, leaseToken: "not-the-holder" }])).toBe(0);
    expect(await completeMessages(handle.db, long.slice(0, 1))).toBe(1);
    // Handed back untried: due again at once, in their place, their attempt not counted.
    await releaseMessages(handle.db, long.slice(1));
    const again = await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now, runs });
    expect(again.map((message) => [message.payload, message.attempts])).toEqual([
      [{ n: 1 }, 1],
      [{ n: 2 }, 1],
      [{ n: 3 }, 1],
    ]);
  });

  it("completes several messages in one statement, and deletes their shared body only when no other message needs it", async () => {
    const t = topic();
    const fanOut = sql.join(
      ["a", "b", "c"].map((key) => sql`select ${t}::text, ${`${t}:${key}`}::text, jsonb_build_object('key', ${key}::text)`),
      sql` union all `,
    );
    await enqueueSelected(handle.db, fanOut, "shared");
    const leased = await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now: new Date(Date.now() + 1000) });
    const [{ body_id: bodyId }] = statementRows<{ body_id: number }>(await handle.db.execute(sql`select body_id from outbox_messages where id = ${leased[0]!.id}`)) as [{ body_id: number }];
    const bodyLeft = async () => statementRows<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from outbox_bodies where id = ${bodyId}`))[0]!.n;
    // A message whose lease is not the caller's is neither deleted nor counted as done with the body.
    expect(await completeMessages(handle.db, [leased[0]!, leased[1]!, { ...leased[2]!, leaseToken: "not-the-holder" }])).toBe(2);
    expect(await bodyLeft()).toBe(1);
    expect(await completeMessages(handle.db, [leased[2]!])).toBe(1);
    expect(await bodyLeft()).toBe(0);
  });

  it("hands a message out again when its lease runs out (its worker died), and the old lease can no longer complete it", async () => {
    const t = topic();
    await enqueueMessages(handle.db, [{ topic: t, orderingKey: `${t}:k`, payload: { n: 1 } }]);
    const now = new Date(Date.now() + 1000);
    const [dead] = await leaseMessages(handle.db, { topics: [t], limit: 1, leaseMs, now });
    expect(await leaseMessages(handle.db, { topics: [t], limit: 1, leaseMs, now: new Date(now.getTime() + leaseMs - 1) })).toEqual([]);
    const [taken] = await leaseMessages(handle.db, { topics: [t], limit: 1, leaseMs, now: new Date(now.getTime() + leaseMs + 1) });
    expect(taken).toMatchObject({ id: dead!.id, attempts: 2 });
    expect(await completeMessage(handle.db, dead!)).toBe(false);
    expect(await completeMessage(handle.db, taken!)).toBe(true);
  });

  it("writes nothing when the enqueuing transaction rolls back", async () => {
    const t = topic();
    await expect(
      handle.db.transaction(async (tx) => {
        await enqueueMessages(tx, [{ topic: t, orderingKey: `${t}:k`, payload: {} }]);
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await leaseMessages(handle.db, { topics: [t], limit: 10, leaseMs, now: new Date() })).toEqual([]);
  });

  it("prunes messages older than asked, except those leased", async () => {
    const t = topic();
    await enqueueMessages(handle.db, [
      { topic: t, orderingKey: `${t}:old`, payload: {} },
      { topic: t, orderingKey: `${t}:leased`, payload: {} },
    ]);
    await handle.db.execute(sql`update outbox_messages set created_at = now() - interval '30 days' where topic = ${t}`);
    await leaseMessages(handle.db, { topics: [t], limit: 1, leaseMs }).then(async ([message]) => {
      await handle.db.execute(sql`update outbox_messages set ordering_key = ${`${t}:leased`} where id = ${message!.id}`);
    });
    expect(await pruneMessages(handle.db, { before: new Date(Date.now() - 7 * 24 * 3600 * 1000) })).toBe(1);
    const left = await handle.db.select().from(outboxMessages).where(sql`${outboxMessages.topic} = ${t}`);
    expect(left.map((row) => row.orderingKey)).toEqual([`${t}:leased`]);
  });

  it("a worker sends every message once, in order per key, retrying what fails", async () => {
    const t = topic();
    const seen: string[] = [];
    let failures = 0;
    const worker = new OutboxWorker(handle, {
      handlers: {
        [t]: async ({ db }, message: LeasedMessage) => {
          const label = `${message.orderingKey.slice(t.length + 1)}${String(message.payload.n)}`;
          if (label === "a2" && failures < 2) {
            failures += 1;
            await rescheduleMessage(db, message, { availableAt: new Date(0), error: "try again" });
            return;
          }
          seen.push(label);
          await completeMessage(db, message);
        },
      },
      leaseMs,
      concurrency: 4,
      pollMs: 60_000,
    });
    await enqueueMessages(
      handle.db,
      [1, 2, 3].flatMap((n) => ["a", "b", "c"].map((key) => ({ topic: t, orderingKey: `${t}:${key}`, payload: { n } }))),
    );
    await worker.start();
    await worker.idle();
    await worker.stop();
    expect(seen).toHaveLength(9);
    expect(new Set(seen).size).toBe(9);
    for (const key of ["a", "b", "c"]) expect(seen.filter((label) => label.startsWith(key))).toEqual([`${key}1`, `${key}2`, `${key}3`]);
    expect(failures).toBe(2);
  });

  it("a worker waits while the process is saturated, and sends once it has room", async () => {
    const t = topic();
    await enqueueMessages(handle.db, [{ topic: t, orderingKey: `${t}:k`, payload: { n: 1 } }]);
    let sentAt = 0;
    // The event loop busy for 600 ms, in slices of 30 ms with a moment for I/O between them, as under heavy load.
    const saturatedUntil = performance.now() + 600;
    const saturated = new Promise<void>((resolve) => {
      const slice = () => {
        const sliceEnd = performance.now() + 30;
        while (performance.now() < sliceEnd);
        if (performance.now() < saturatedUntil) setImmediate(slice);
        else resolve();
      };
      slice();
    });
    const worker = new OutboxWorker(handle, {
      handlers: {
        [t]: async ({ db }, message: LeasedMessage) => {
          sentAt = performance.now();
          await completeMessage(db, message);
        },
      },
      leaseMs,
      concurrency: 1,
      pollMs: 60_000,
      yieldWhenBusy: { utilization: 0.5, requestsInFlight: 4, stepMs: 10, maxWaitMs: 10_000 },
    });
    await worker.start();
    await saturated;
    await worker.idle();
    await worker.stop();
    expect(sentAt).toBeGreaterThanOrEqual(saturatedUntil);
  });

  /** A server's request count as the worker reads it (request·ms so far), with `inFlight` requests under way from now. */
  function requestLoad(inFlight: number) {
    const load = { inFlight, requestMs: 0, since: performance.now() };
    const advance = () => {
      const now = performance.now();
      load.requestMs += load.inFlight * (now - load.since);
      load.since = now;
    };
    return {
      requestMs: () => {
        advance();
        return load.requestMs;
      },
      set(count: number) {
        advance();
        load.inFlight = count;
      },
    };
  }

  it("a worker waits while requests queue up, though the event loop is idle, and sends once they are answered", async () => {
    const t = topic();
    await enqueueMessages(handle.db, [{ topic: t, orderingKey: `${t}:k`, payload: { n: 1 } }]);
    let sentAt = 0;
    const load = requestLoad(0);
    const worker = new OutboxWorker(handle, {
      handlers: {
        [t]: async ({ db }, message: LeasedMessage) => {
          sentAt = performance.now();
          await completeMessage(db, message);
        },
      },
      leaseMs,
      concurrency: 1,
      pollMs: 60_000,
      yieldWhenBusy: { utilization: 0.99, requestsInFlight: 4, stepMs: 10, maxWaitMs: 10_000 },
      requestMs: load.requestMs,
    });
    // Eight requests waiting on the database for 400 ms, then none.
    load.set(8);
    const answeredAt = performance.now() + 400;
    setTimeout(() => load.set(0), 400);
    await worker.start();
    await worker.idle();
    await worker.stop();
    expect(sentAt).toBeGreaterThanOrEqual(answeredAt);
  });

  it("past its longest wait, the worker of a server that stays busy sends one run at a time", async () => {
    const t = topic();
    await enqueueMessages(
      handle.db,
      ["a", "b", "c", "d"].map((key) => ({ topic: t, orderingKey: `${t}:${key}`, payload: { key } })),
    );
    let sending = 0;
    let mostAtOnce = 0;
    const sent: string[] = [];
    const worker = new OutboxWorker(handle, {
      handlers: {
        [t]: async ({ db }, message: LeasedMessage) => {
          sending += 1;
          mostAtOnce = Math.max(mostAtOnce, sending);
          await new Promise((resolve) => setTimeout(resolve, 20));
          sent.push(message.payload.key as string);
          sending -= 1;
          await completeMessage(db, message);
        },
      },
      leaseMs,
      concurrency: 4,
      pollMs: 60_000,
      yieldWhenBusy: { utilization: 0.99, requestsInFlight: 4, stepMs: 5, maxWaitMs: 30 },
      requestMs: requestLoad(16).requestMs,
    });
    await worker.start();
    await worker.idle();
    await worker.stop();
    expect(sent.toSorted()).toEqual(["a", "b", "c", "d"]);
    expect(mostAtOnce).toBe(1);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("the outbox with two processes on one PostgreSQL database", () => {
  it("never hands the same message to both at once, and each key's messages go out in order", async () => {
    const database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    const handles: DatabaseHandle[] = [];
    try {
      for (let index = 0; index < 2; index += 1) handles.push(await openDatabase({ url: database.url, poolSize: 3 }));
      await handles[0]!.migrate();
      const keys = Array.from({ length: 12 }, (_, index) => `key-${index}`);
      await enqueueMessages(
        handles[0]!.db,
        Array.from({ length: 10 }, (_, n) => keys.map((key) => ({ topic: "race", orderingKey: key, payload: { n } }))).flat(),
      );
      const held = new Set<number>();
      const delivered: { key: string; n: number; by: number }[] = [];
      let overlaps = 0;
      const workers = handles.map(
        (handle, by) =>
          new OutboxWorker(handle, {
            handlers: {
              race: async ({ db }, message) => {
                if (held.has(message.id)) overlaps += 1;
                held.add(message.id);
                await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
                delivered.push({ key: message.orderingKey, n: Number(message.payload.n), by });
                held.delete(message.id);
                await completeMessage(db, message);
              },
            },
            leaseMs,
            concurrency: 6,
            pollMs: 20,
          }),
      );
      await Promise.all(workers.map((worker) => worker.start()));
      for (let waited = 0; delivered.length < 120 && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      await Promise.all(workers.map((worker) => worker.stop()));
      expect(overlaps).toBe(0);
      expect(delivered).toHaveLength(120);
      for (const key of keys) expect(delivered.filter((entry) => entry.key === key).map((entry) => entry.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // Both processes took part.
      expect(new Set(delivered.map((entry) => entry.by)).size).toBe(2);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
      await database.drop();
    }
  });
});
