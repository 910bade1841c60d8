ALTER TABLE "alert_integrations" ADD COLUMN "heartbeat_interval_seconds" integer;--> statement-breakpoint
ALTER TABLE "alert_integrations" ADD COLUMN "heartbeat_grace_seconds" integer;--> statement-breakpoint
ALTER TABLE "alert_integrations" ADD COLUMN "last_ping_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "alert_integrations" ADD COLUMN "next_due_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "alert_integrations" ADD COLUMN "missed_alert_open" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "alert_integrations_heartbeat_due_idx" ON "alert_integrations" USING btree ("next_due_at") WHERE "alert_integrations"."active" and "alert_integrations"."next_due_at" is not null;--> statement-breakpoint
ALTER TABLE "alert_integrations" ADD CONSTRAINT "alert_integrations_heartbeat_settings" CHECK (("alert_integrations"."type" = 'heartbeat') = ("alert_integrations"."heartbeat_interval_seconds" is not null and "alert_integrations"."heartbeat_grace_seconds" is not null));