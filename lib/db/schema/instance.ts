import { pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

// Instance-wide secrets generated on first start (e.g. the session signing secret), shared by every replica.
export const instanceSecrets = pgTable("instance_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});
