CREATE TABLE "alert_assignees" (
	"alert_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "alert_assignees_alert_id_user_id_pk" PRIMARY KEY("alert_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "alert_assignees" ADD CONSTRAINT "alert_assignees_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_assignees" ADD CONSTRAINT "alert_assignees_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_assignees_user_idx" ON "alert_assignees" USING btree ("user_id","alert_id");