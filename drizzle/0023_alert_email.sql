CREATE TABLE "alert_email_digests" (
	"alert_id" integer PRIMARY KEY NOT NULL,
	"unmailed_events" integer DEFAULT 0 NOT NULL,
	"next_mail_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "alert_emails" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "project_alert_settings" ADD COLUMN "send_email" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_email_digests" ADD CONSTRAINT "alert_email_digests_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;