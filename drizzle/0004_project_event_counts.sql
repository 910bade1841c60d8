CREATE TABLE "project_event_counts" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"event_count" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "project_event_counts" ADD CONSTRAINT "project_event_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;