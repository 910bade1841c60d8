-- The count functions lock the rows they are about to update in the mode the UPDATE itself takes (FOR NO KEY UPDATE),
-- not FOR UPDATE. FOR UPDATE also conflicts with the key-share lock that every insert referencing the row takes for its
-- foreign key, so an issue being created held up every other write that names its project (events, alerts, notes,
-- labels, members) until it committed, and was held up by theirs. Only count updates now wait for each other.
CREATE OR REPLACE FUNCTION "apply_project_issue_counts"("changes" jsonb) RETURNS void LANGUAGE sql AS $$
  SELECT 1 FROM "projects"
  WHERE "id" IN (SELECT ("change"->>'project_id')::integer FROM jsonb_array_elements("changes") AS "change")
  ORDER BY "id" FOR NO KEY UPDATE;
  UPDATE "projects" SET
    "open_issues_count" = "open_issues_count" + ("change"->>'opened')::integer,
    "open_nonconfidential_issues_count" = "open_nonconfidential_issues_count" + ("change"->>'opened_nonconfidential')::integer
  FROM jsonb_array_elements("changes") AS "change"
  WHERE "projects"."id" = ("change"->>'project_id')::integer
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "apply_label_issue_counts"("changes" jsonb) RETURNS void LANGUAGE sql AS $$
  SELECT 1 FROM "labels"
  WHERE "id" IN (SELECT ("change"->>'label_id')::integer FROM jsonb_array_elements("changes") AS "change")
  ORDER BY "id" FOR NO KEY UPDATE;
  UPDATE "labels" SET
    "open_issues_count" = "open_issues_count" + ("change"->>'opened')::integer,
    "closed_issues_count" = "closed_issues_count" + ("change"->>'closed')::integer,
    "open_nonconfidential_issues_count" = "open_nonconfidential_issues_count" + ("change"->>'opened_nonconfidential')::integer,
    "closed_nonconfidential_issues_count" = "closed_nonconfidential_issues_count" + ("change"->>'closed_nonconfidential')::integer
  FROM jsonb_array_elements("changes") AS "change"
  WHERE "labels"."id" = ("change"->>'label_id')::integer
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "issue_deleted_from_labels"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "projects" WHERE "id" = OLD."project_id") THEN
    PERFORM 1 FROM "labels" WHERE "id" IN (SELECT "label_id" FROM "issue_labels" WHERE "issue_id" = OLD."id") ORDER BY "id" FOR NO KEY UPDATE;
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
