-- Finding a reader's own confidential issues, and those issues' events, reads only them: by author (and project) in
-- the issues, by audience and author in the events, so neither plan falls back to a project's or an author's whole list.
DROP INDEX "events_issue_idx";--> statement-breakpoint
CREATE INDEX "events_issue_idx" ON "events" USING btree ("issue_id","audience","author_id") WHERE "events"."issue_id" is not null;--> statement-breakpoint
DROP INDEX "issues_confidential_author_idx";--> statement-breakpoint
CREATE INDEX "issues_confidential_author_idx" ON "issues" USING btree ("author_id","project_id","id") WHERE "issues"."confidential";