CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"expire" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "confirmed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "confirmation_token_digest" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "confirmation_sent_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "reset_password_token_digest" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "reset_password_sent_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "session_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "internal" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "users_confirmation_token_digest_key" ON "users" USING btree ("confirmation_token_digest");--> statement-breakpoint
CREATE UNIQUE INDEX "users_reset_password_token_digest_key" ON "users" USING btree ("reset_password_token_digest");--> statement-breakpoint
CREATE INDEX "project_members_expires_at_idx" ON "project_members" USING btree ("expires_at") WHERE "project_members"."expires_at" is not null;--> statement-breakpoint
-- Accounts created before email confirmation existed were all treated as confirmed; they stay so.
UPDATE "users" SET "confirmed_at" = "created_at" WHERE "confirmed_at" IS NULL;--> statement-breakpoint
-- Comment events about internal notes recorded before the column existed.
UPDATE "events" SET "internal" = true WHERE "action" = 'commented' AND ("data"->'note'->>'internal')::boolean IS TRUE;
