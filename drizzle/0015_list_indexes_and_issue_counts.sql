DROP INDEX "notes_issue_idx";--> statement-breakpoint
DROP INDEX "alerts_project_status_idx";--> statement-breakpoint
DROP INDEX "issues_project_created_idx";--> statement-breakpoint
DROP INDEX "issues_project_updated_idx";--> statement-breakpoint
DROP INDEX "issues_milestone_idx";--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "open_issues_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "open_nonconfidential_issues_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "labels" ADD COLUMN "open_issues_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "labels" ADD COLUMN "closed_issues_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "labels" ADD COLUMN "open_nonconfidential_issues_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "labels" ADD COLUMN "closed_nonconfidential_issues_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "users_name_idx" ON "users" USING btree ("name","id");--> statement-breakpoint
CREATE INDEX "users_username_idx" ON "users" USING btree ("username","id");--> statement-breakpoint
CREATE INDEX "users_created_idx" ON "users" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "users_updated_idx" ON "users" USING btree ("updated_at","id");--> statement-breakpoint
CREATE INDEX "project_members_project_created_idx" ON "project_members" USING btree ("project_id","created_at","user_id");--> statement-breakpoint
CREATE INDEX "projects_visibility_name_idx" ON "projects" USING btree ("visibility","name","id");--> statement-breakpoint
CREATE INDEX "projects_visibility_path_idx" ON "projects" USING btree ("visibility","path","id");--> statement-breakpoint
CREATE INDEX "projects_visibility_created_idx" ON "projects" USING btree ("visibility","created_at","id");--> statement-breakpoint
CREATE INDEX "projects_visibility_updated_idx" ON "projects" USING btree ("visibility","updated_at","id");--> statement-breakpoint
CREATE INDEX "projects_visibility_activity_idx" ON "projects" USING btree ("visibility","last_activity_at","id");--> statement-breakpoint
CREATE INDEX "issues_project_state_created_idx" ON "issues" USING btree ("project_id","state","created_at","id","confidential","author_id");--> statement-breakpoint
CREATE INDEX "issues_project_state_updated_idx" ON "issues" USING btree ("project_id","state","updated_at","id","confidential","author_id");--> statement-breakpoint
CREATE INDEX "issues_created_idx" ON "issues" USING btree ("created_at","id","project_id","state","confidential","author_id");--> statement-breakpoint
CREATE INDEX "issues_updated_idx" ON "issues" USING btree ("updated_at","id","project_id","state","confidential","author_id");--> statement-breakpoint
CREATE INDEX "notes_issue_created_idx" ON "notes" USING btree ("issue_id","created_at","id","internal","system");--> statement-breakpoint
CREATE INDEX "notes_issue_updated_idx" ON "notes" USING btree ("issue_id","updated_at","id","internal","system");--> statement-breakpoint
CREATE INDEX "alerts_project_status_idx" ON "alerts" USING btree ("project_id","status","started_at","id");--> statement-breakpoint
CREATE INDEX "issues_project_created_idx" ON "issues" USING btree ("project_id","created_at","id","state","confidential","author_id");--> statement-breakpoint
CREATE INDEX "issues_project_updated_idx" ON "issues" USING btree ("project_id","updated_at","id","state","confidential","author_id");--> statement-breakpoint
CREATE INDEX "issues_milestone_idx" ON "issues" USING btree ("milestone_id","id","project_id","confidential","author_id");
--> statement-breakpoint
-- Open-issue counts of projects and issue counts of labels, kept exact by the database in the transaction of every
-- change: whichever statement inserts, changes or deletes issues or label links (the API, the alert bot, a cascade
-- from a deleted user), the counts follow. Statement-level triggers apply a statement's net change per project or
-- label in one update, so bulk changes cost one update per project, and changes that move no count touch no row.
-- The changed rows arrive as transition tables: "issues_after" (inserts, updates), "issues_before" (updates, deletes).
-- Rows are locked in the order of their ids before they change, so transactions that change the counts of the same
-- projects (or labels) wait for each other rather than deadlock.
CREATE FUNCTION "apply_project_issue_counts"("changes" jsonb) RETURNS void LANGUAGE sql AS $$
  SELECT 1 FROM "projects"
  WHERE "id" IN (SELECT ("change"->>'project_id')::integer FROM jsonb_array_elements("changes") AS "change")
  ORDER BY "id" FOR UPDATE;
  UPDATE "projects" SET
    "open_issues_count" = "open_issues_count" + ("change"->>'opened')::integer,
    "open_nonconfidential_issues_count" = "open_nonconfidential_issues_count" + ("change"->>'opened_nonconfidential')::integer
  FROM jsonb_array_elements("changes") AS "change"
  WHERE "projects"."id" = ("change"->>'project_id')::integer
$$;
--> statement-breakpoint
CREATE FUNCTION "issues_count_in_projects"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  "changes" jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg("change") INTO "changes" FROM (
      SELECT "project_id", count(*) FILTER (WHERE "state" = 'opened') AS "opened",
        count(*) FILTER (WHERE "state" = 'opened' AND NOT "confidential") AS "opened_nonconfidential"
      FROM "issues_after" GROUP BY "project_id"
    ) AS "change" WHERE "opened" <> 0 OR "opened_nonconfidential" <> 0;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT jsonb_agg("change") INTO "changes" FROM (
      SELECT "project_id", -count(*) FILTER (WHERE "state" = 'opened') AS "opened",
        -count(*) FILTER (WHERE "state" = 'opened' AND NOT "confidential") AS "opened_nonconfidential"
      FROM "issues_before" GROUP BY "project_id"
    ) AS "change" WHERE "opened" <> 0 OR "opened_nonconfidential" <> 0;
  ELSE
    SELECT jsonb_agg("change") INTO "changes" FROM (
      SELECT "project_id", sum("opened") AS "opened", sum("opened_nonconfidential") AS "opened_nonconfidential"
      FROM (
        SELECT "project_id", ("state" = 'opened')::integer AS "opened",
          ("state" = 'opened' AND NOT "confidential")::integer AS "opened_nonconfidential"
        FROM "issues_after"
        UNION ALL
        SELECT "project_id", -("state" = 'opened')::integer, -("state" = 'opened' AND NOT "confidential")::integer
        FROM "issues_before"
      ) AS "signed" GROUP BY "project_id"
    ) AS "change" WHERE "opened" <> 0 OR "opened_nonconfidential" <> 0;
  END IF;
  IF "changes" IS NOT NULL THEN
    PERFORM "apply_project_issue_counts"("changes");
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "issues_count_in_projects_insert" AFTER INSERT ON "issues"
  REFERENCING NEW TABLE AS "issues_after" FOR EACH STATEMENT EXECUTE FUNCTION "issues_count_in_projects"();
--> statement-breakpoint
CREATE TRIGGER "issues_count_in_projects_update" AFTER UPDATE ON "issues"
  REFERENCING OLD TABLE AS "issues_before" NEW TABLE AS "issues_after" FOR EACH STATEMENT EXECUTE FUNCTION "issues_count_in_projects"();
--> statement-breakpoint
CREATE TRIGGER "issues_count_in_projects_delete" AFTER DELETE ON "issues"
  REFERENCING OLD TABLE AS "issues_before" FOR EACH STATEMENT EXECUTE FUNCTION "issues_count_in_projects"();
--> statement-breakpoint
-- Label counts: each change is one row per label with how many issues it gains (or loses) open, closed, open and not
-- confidential, closed and not confidential.
CREATE FUNCTION "apply_label_issue_counts"("changes" jsonb) RETURNS void LANGUAGE sql AS $$
  SELECT 1 FROM "labels"
  WHERE "id" IN (SELECT ("change"->>'label_id')::integer FROM jsonb_array_elements("changes") AS "change")
  ORDER BY "id" FOR UPDATE;
  UPDATE "labels" SET
    "open_issues_count" = "open_issues_count" + ("change"->>'opened')::integer,
    "closed_issues_count" = "closed_issues_count" + ("change"->>'closed')::integer,
    "open_nonconfidential_issues_count" = "open_nonconfidential_issues_count" + ("change"->>'opened_nonconfidential')::integer,
    "closed_nonconfidential_issues_count" = "closed_nonconfidential_issues_count" + ("change"->>'closed_nonconfidential')::integer
  FROM jsonb_array_elements("changes") AS "change"
  WHERE "labels"."id" = ("change"->>'label_id')::integer
$$;
--> statement-breakpoint
-- A label link added or removed counts its issue as it is. A link removed because its issue is being deleted finds no
-- issue here: the issue's own delete trigger below has already taken it off its labels' counts.
CREATE FUNCTION "issue_labels_count_in_labels"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  "changes" jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg("change") INTO "changes" FROM (
      SELECT "link"."label_id",
        count(*) FILTER (WHERE "issue"."state" = 'opened') AS "opened",
        count(*) FILTER (WHERE "issue"."state" = 'closed') AS "closed",
        count(*) FILTER (WHERE "issue"."state" = 'opened' AND NOT "issue"."confidential") AS "opened_nonconfidential",
        count(*) FILTER (WHERE "issue"."state" = 'closed' AND NOT "issue"."confidential") AS "closed_nonconfidential"
      FROM "links_after" AS "link" JOIN "issues" AS "issue" ON "issue"."id" = "link"."issue_id"
      GROUP BY "link"."label_id"
    ) AS "change";
  ELSE
    SELECT jsonb_agg("change") INTO "changes" FROM (
      SELECT "link"."label_id",
        -count(*) FILTER (WHERE "issue"."state" = 'opened') AS "opened",
        -count(*) FILTER (WHERE "issue"."state" = 'closed') AS "closed",
        -count(*) FILTER (WHERE "issue"."state" = 'opened' AND NOT "issue"."confidential") AS "opened_nonconfidential",
        -count(*) FILTER (WHERE "issue"."state" = 'closed' AND NOT "issue"."confidential") AS "closed_nonconfidential"
      FROM "links_before" AS "link" JOIN "issues" AS "issue" ON "issue"."id" = "link"."issue_id"
      GROUP BY "link"."label_id"
    ) AS "change";
  END IF;
  IF "changes" IS NOT NULL THEN
    PERFORM "apply_label_issue_counts"("changes");
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "issue_labels_count_in_labels_insert" AFTER INSERT ON "issue_labels"
  REFERENCING NEW TABLE AS "links_after" FOR EACH STATEMENT EXECUTE FUNCTION "issue_labels_count_in_labels"();
--> statement-breakpoint
CREATE TRIGGER "issue_labels_count_in_labels_delete" AFTER DELETE ON "issue_labels"
  REFERENCING OLD TABLE AS "links_before" FOR EACH STATEMENT EXECUTE FUNCTION "issue_labels_count_in_labels"();
--> statement-breakpoint
-- An issue closed, reopened or made (non-)confidential moves between its labels' counts.
CREATE FUNCTION "issues_count_in_labels"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  "changes" jsonb;
BEGIN
  SELECT jsonb_agg("change") INTO "changes" FROM (
    SELECT "link"."label_id", sum("signed"."opened") AS "opened", sum("signed"."closed") AS "closed",
      sum("signed"."opened_nonconfidential") AS "opened_nonconfidential",
      sum("signed"."closed_nonconfidential") AS "closed_nonconfidential"
    FROM (
      SELECT "after"."id", ("after"."state" = 'opened')::integer - ("before"."state" = 'opened')::integer AS "opened",
        ("after"."state" = 'closed')::integer - ("before"."state" = 'closed')::integer AS "closed",
        ("after"."state" = 'opened' AND NOT "after"."confidential")::integer
          - ("before"."state" = 'opened' AND NOT "before"."confidential")::integer AS "opened_nonconfidential",
        ("after"."state" = 'closed' AND NOT "after"."confidential")::integer
          - ("before"."state" = 'closed' AND NOT "before"."confidential")::integer AS "closed_nonconfidential"
      FROM "issues_after" AS "after" JOIN "issues_before" AS "before" ON "before"."id" = "after"."id"
      WHERE "after"."state" IS DISTINCT FROM "before"."state" OR "after"."confidential" IS DISTINCT FROM "before"."confidential"
    ) AS "signed" JOIN "issue_labels" AS "link" ON "link"."issue_id" = "signed"."id"
    GROUP BY "link"."label_id"
  ) AS "change";
  IF "changes" IS NOT NULL THEN
    PERFORM "apply_label_issue_counts"("changes");
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "issues_count_in_labels_update" AFTER UPDATE ON "issues"
  REFERENCING OLD TABLE AS "issues_before" NEW TABLE AS "issues_after" FOR EACH STATEMENT EXECUTE FUNCTION "issues_count_in_labels"();
--> statement-breakpoint
-- An issue being deleted leaves its labels' counts while its links still exist (they go with it, after). When its
-- whole project is being deleted the labels go too, and there is nothing to keep.
CREATE FUNCTION "issue_deleted_from_labels"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "projects" WHERE "id" = OLD."project_id") THEN
    PERFORM 1 FROM "labels" WHERE "id" IN (SELECT "label_id" FROM "issue_labels" WHERE "issue_id" = OLD."id") ORDER BY "id" FOR UPDATE;
    UPDATE "labels" SET
      "open_issues_count" = "open_issues_count" - (OLD."state" = 'opened')::integer,
      "closed_issues_count" = "closed_issues_count" - (OLD."state" = 'closed')::integer,
      "open_nonconfidential_issues_count" = "open_nonconfidential_issues_count" - (OLD."state" = 'opened' AND NOT OLD."confidential")::integer,
      "closed_nonconfidential_issues_count" = "closed_nonconfidential_issues_count" - (OLD."state" = 'closed' AND NOT OLD."confidential")::integer
    FROM "issue_labels" AS "link"
    WHERE "link"."issue_id" = OLD."id" AND "labels"."id" = "link"."label_id";
  END IF;
  RETURN OLD;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "issue_deleted_from_labels" BEFORE DELETE ON "issues"
  FOR EACH ROW EXECUTE FUNCTION "issue_deleted_from_labels"();
--> statement-breakpoint
-- The counts of what existed before the triggers did.
UPDATE "projects" SET
  "open_issues_count" = "counted"."opened",
  "open_nonconfidential_issues_count" = "counted"."opened_nonconfidential"
FROM (
  SELECT "project_id", count(*) FILTER (WHERE "state" = 'opened') AS "opened",
    count(*) FILTER (WHERE "state" = 'opened' AND NOT "confidential") AS "opened_nonconfidential"
  FROM "issues" GROUP BY "project_id"
) AS "counted"
WHERE "projects"."id" = "counted"."project_id";
--> statement-breakpoint
UPDATE "labels" SET
  "open_issues_count" = "counted"."opened",
  "closed_issues_count" = "counted"."closed",
  "open_nonconfidential_issues_count" = "counted"."opened_nonconfidential",
  "closed_nonconfidential_issues_count" = "counted"."closed_nonconfidential"
FROM (
  SELECT "link"."label_id",
    count(*) FILTER (WHERE "issue"."state" = 'opened') AS "opened",
    count(*) FILTER (WHERE "issue"."state" = 'closed') AS "closed",
    count(*) FILTER (WHERE "issue"."state" = 'opened' AND NOT "issue"."confidential") AS "opened_nonconfidential",
    count(*) FILTER (WHERE "issue"."state" = 'closed' AND NOT "issue"."confidential") AS "closed_nonconfidential"
  FROM "issue_labels" AS "link" JOIN "issues" AS "issue" ON "issue"."id" = "link"."issue_id"
  GROUP BY "link"."label_id"
) AS "counted"
WHERE "labels"."id" = "counted"."label_id";
