ALTER TABLE "alert_integrations" ADD COLUMN "payload_format" text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_integrations" ADD COLUMN "last_payload_format" text;--> statement-breakpoint
ALTER TABLE "alert_integrations" ADD COLUMN "sns_subscription_confirmation" jsonb;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "payload_format" text;