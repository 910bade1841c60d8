ALTER TABLE "users" ADD COLUMN "feed_token_digest" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "feed_token_created_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "users_feed_token_digest_key" ON "users" USING btree ("feed_token_digest");