import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, instant } from "./columns";

/**
 * Work to send outside, written in the transaction of the change that causes it and deleted once sent (or given up
 * on). Messages with the same `ordering_key` are sent one at a time, oldest first; a worker holds a message while
 * `leased_until` is in the future, and a lease that runs out (its process died) frees the message for another.
 */
export const outboxMessages = pgTable(
  "outbox_messages",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    /** Which sender handles it (`web_hook`). */
    topic: text("topic").notNull(),
    orderingKey: text("ordering_key").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    /**
     * The text it carries when one change sends the same text to many recipients (a webhook payload to each of a
     * project's hooks): written once in `outbox_bodies`, not once per message.
     */
    bodyId: bigint("body_id", { mode: "number" }),
    /** Attempts begun, counted when a worker leases the message. */
    attempts: integer("attempts").notNull().default(0),
    availableAt: instant("available_at").notNull().default(sql`now()`),
    leasedUntil: instant("leased_until"),
    /** Who holds the lease: only the holder may complete or reschedule the message. */
    leaseToken: text("lease_token"),
    lastError: text("last_error"),
    createdAt: createdAt(),
  },
  (table) => [
    // The head of each key's queue, and whether anything older waits before a message.
    index("outbox_messages_ordering_idx").on(table.orderingKey, table.id),
    // The due messages, oldest first, whatever their topic: every worker sends every topic, and an index that began with
    // the topic could not give several topics' messages in one order without reading and sorting them all.
    index("outbox_messages_due_idx").on(table.availableAt, table.id),
    // Whether any message still needs a body, when one is sent and when bodies are pruned.
    index("outbox_messages_body_idx").on(table.bodyId).where(sql`${table.bodyId} is not null`),
  ],
);

/**
 * Texts shared by several outbox messages. A body goes with the last message that needs it, or, when two of those
 * finish at once and each sees the other, with the next prune (`pruneMessages`).
 */
export const outboxBodies = pgTable("outbox_bodies", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  body: text("body").notNull(),
  createdAt: createdAt(),
});

export type OutboxMessageRow = typeof outboxMessages.$inferSelect;
