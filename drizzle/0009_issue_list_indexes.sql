CREATE INDEX "events_issue_idx" ON "events" USING btree ("issue_id") WHERE "events"."issue_id" is not null;--> statement-breakpoint
CREATE INDEX "issues_project_created_idx" ON "issues" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "issues_project_updated_idx" ON "issues" USING btree ("project_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "issues_author_idx" ON "issues" USING btree ("author_id","id");--> statement-breakpoint
CREATE INDEX "issues_milestone_idx" ON "issues" USING btree ("milestone_id");