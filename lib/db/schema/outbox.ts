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
    index("outbox_messages_available_idx").on(table.topic, table.availableAt, table.id),
  ],
);

export type OutboxMessageRow = typeof outboxMessages.$inferSelect;
