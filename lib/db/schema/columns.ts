import { timestamp } from "drizzle-orm/pg-core";

export const createdAt = () => timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow();

export const updatedAt = () =>
  timestamp("updated_at", { withTimezone: true, precision: 3 })
    .notNull()
    .defaultNow()
    .$onUpdateFn(() => new Date());

/** A timestamp with time zone and millisecond precision, the type of every point in time we store. */
export const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });
