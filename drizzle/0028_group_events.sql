ALTER TABLE "events" ADD COLUMN "group_id" integer;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_group_created_id_idx" ON "events" USING btree ("group_id","created_at","id") WHERE "events"."group_id" is not null;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_project_or_group" CHECK ("events"."project_id" is null or "events"."group_id" is null);