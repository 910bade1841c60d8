import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { instant } from "./columns";

/**
 * Rate-limit counters shared by every replica on PostgreSQL (rate-limiter-flexible's drizzle store): one row per
 * limited key (`<limit>:<who>`), the points consumed in the current window and when the window ends.
 */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  expire: instant("expire"),
});
