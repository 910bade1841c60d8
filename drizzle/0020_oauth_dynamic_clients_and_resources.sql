ALTER TABLE "oauth_applications" ADD COLUMN "registration" text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_applications" ADD COLUMN "metadata_fetched_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "oauth_applications" ADD COLUMN "metadata_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD COLUMN "resource" text;--> statement-breakpoint
CREATE INDEX "oauth_applications_unverified_idx" ON "oauth_applications" USING btree ("created_at") WHERE registration <> 'manual';--> statement-breakpoint
CREATE INDEX "oauth_grants_application_idx" ON "oauth_grants" USING btree ("application_id");