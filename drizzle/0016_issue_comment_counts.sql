CREATE TABLE "issue_comment_counts" (
	"issue_id" integer PRIMARY KEY NOT NULL,
	"comments" integer DEFAULT 0 NOT NULL,
	"internal_comments" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "issue_comment_counts" ADD CONSTRAINT "issue_comment_counts_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "issue_comment_counts" ("issue_id", "comments", "internal_comments")
  SELECT "issue_id", count(*) FILTER (WHERE NOT "internal"), count(*) FILTER (WHERE "internal") FROM "notes" WHERE NOT "system" GROUP BY "issue_id";
--> statement-breakpoint
-- Kept in step in the transaction of every change: one note at a time as comments are written, edited (made internal
-- or not) or deleted, and a statement's notes at once when many go together (an issue, a project or an author deleted).
CREATE FUNCTION "count_issue_comment"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NOT OLD."system" THEN
      UPDATE "issue_comment_counts" SET
          "comments" = "comments" - (NOT OLD."internal")::integer,
          "internal_comments" = "internal_comments" - OLD."internal"::integer
        WHERE "issue_id" = OLD."issue_id";
    END IF;
  END IF;
  IF NOT NEW."system" THEN
    INSERT INTO "issue_comment_counts" ("issue_id", "comments", "internal_comments")
      VALUES (NEW."issue_id", (NOT NEW."internal")::integer, NEW."internal"::integer)
      ON CONFLICT ("issue_id") DO UPDATE SET
        "comments" = "issue_comment_counts"."comments" + excluded."comments",
        "internal_comments" = "issue_comment_counts"."internal_comments" + excluded."internal_comments";
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "notes_count_comment_insert" AFTER INSERT ON "notes" FOR EACH ROW EXECUTE FUNCTION "count_issue_comment"();
--> statement-breakpoint
CREATE TRIGGER "notes_count_comment_update" AFTER UPDATE OF "issue_id", "internal", "system" ON "notes"
  FOR EACH ROW WHEN (OLD."issue_id" <> NEW."issue_id" OR OLD."internal" <> NEW."internal" OR OLD."system" <> NEW."system")
  EXECUTE FUNCTION "count_issue_comment"();
--> statement-breakpoint
-- An issue being deleted takes its counts with it (a cascade); the update then finds no row.
CREATE FUNCTION "count_deleted_issue_comments"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "issue_comment_counts" AS c SET
      "comments" = c."comments" - gone."comments",
      "internal_comments" = c."internal_comments" - gone."internal_comments"
    FROM (SELECT "issue_id", count(*) FILTER (WHERE NOT "internal") AS "comments", count(*) FILTER (WHERE "internal") AS "internal_comments"
          FROM "deleted_notes" WHERE NOT "system" GROUP BY "issue_id") AS gone
    WHERE c."issue_id" = gone."issue_id";
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "notes_count_comment_delete" AFTER DELETE ON "notes" REFERENCING OLD TABLE AS "deleted_notes"
  FOR EACH STATEMENT EXECUTE FUNCTION "count_deleted_issue_comments"();
