-- Who may see each event, as a column that indexes can serve in order (lib/db/schema/events.ts, eventAudiences):
-- 0 everyone who sees the project, 1 those who may read its code (pushes), 2 those who may read confidential issues and
-- the issue's author (events about a confidential issue), 3 those who may read internal notes.
ALTER TABLE "events" ADD COLUMN "audience" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "events" SET "audience" = CASE
    WHEN "internal" THEN 3
    WHEN "issue_id" IS NOT NULL AND EXISTS (SELECT 1 FROM "issues" WHERE "issues"."id" = "events"."issue_id" AND "issues"."confidential") THEN 2
    ELSE 1 END
  WHERE "internal" OR "action" = 'pushed'
    OR ("issue_id" IS NOT NULL AND EXISTS (SELECT 1 FROM "issues" WHERE "issues"."id" = "events"."issue_id" AND "issues"."confidential"));--> statement-breakpoint
CREATE INDEX "events_project_everyone_idx" ON "events" USING btree ("project_id","created_at","id") WHERE "events"."audience" = 0;--> statement-breakpoint
CREATE INDEX "events_project_code_readers_idx" ON "events" USING btree ("project_id","created_at","id") WHERE "events"."audience" <= 1;--> statement-breakpoint
CREATE FUNCTION "event_audience"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."audience" := CASE
    WHEN NEW."internal" THEN 3
    WHEN NEW."issue_id" IS NOT NULL AND EXISTS (SELECT 1 FROM "issues" WHERE "id" = NEW."issue_id" AND "confidential") THEN 2
    WHEN NEW."action" = 'pushed' THEN 1
    ELSE 0 END;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "events_audience" BEFORE INSERT OR UPDATE OF "internal", "issue_id", "action", "audience" ON "events"
  FOR EACH ROW EXECUTE FUNCTION "event_audience"();--> statement-breakpoint
-- An issue made confidential, or public again, takes its events with it; comments in internal notes stay internal.
CREATE FUNCTION "issue_events_audience"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "events" SET "audience" = CASE WHEN NEW."confidential" THEN 2 ELSE 0 END
    WHERE "issue_id" = NEW."id" AND "audience" <> 3;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "issues_events_audience" AFTER UPDATE OF "confidential" ON "issues"
  FOR EACH ROW WHEN (OLD."confidential" IS DISTINCT FROM NEW."confidential") EXECUTE FUNCTION "issue_events_audience"();--> statement-breakpoint
-- The counts, by audience, action and target type, per project and per author in each project, replace the
-- per-project totals.
DROP TABLE "project_event_counts";--> statement-breakpoint
CREATE TABLE "project_event_counts" (
	"project_id" integer NOT NULL,
	"audience" smallint NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"event_count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "project_event_counts_pk" PRIMARY KEY("project_id","audience","action","target_type")
);--> statement-breakpoint
ALTER TABLE "project_event_counts" ADD CONSTRAINT "project_event_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "author_event_counts" (
	"author_id" integer NOT NULL,
	"project_id" integer NOT NULL,
	"audience" smallint NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"event_count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "author_event_counts_pk" PRIMARY KEY("author_id","project_id","audience","action","target_type")
);--> statement-breakpoint
ALTER TABLE "author_event_counts" ADD CONSTRAINT "author_event_counts_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "author_event_counts" ADD CONSTRAINT "author_event_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "project_event_counts" ("project_id", "audience", "action", "target_type", "event_count")
  SELECT "project_id", "audience", "action", coalesce("target_type", ''), count(*) FROM "events" WHERE "project_id" IS NOT NULL GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO "author_event_counts" ("author_id", "project_id", "audience", "action", "target_type", "event_count")
  SELECT "author_id", "project_id", "audience", "action", coalesce("target_type", ''), count(*) FROM "events" WHERE "project_id" IS NOT NULL GROUP BY 1, 2, 3, 4, 5;--> statement-breakpoint
-- Both kept in step in the transaction of every write: one row at a time for inserts (one or a few events per change),
-- one statement's rows at once for deletes (retention removes a thousand at a time) and updates (an issue's
-- confidentiality). Events without a project are in no list, so in no count.
CREATE FUNCTION "count_inserted_event"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."project_id" IS NOT NULL THEN
    INSERT INTO "project_event_counts" ("project_id", "audience", "action", "target_type", "event_count")
      VALUES (NEW."project_id", NEW."audience", NEW."action", coalesce(NEW."target_type", ''), 1)
      ON CONFLICT ("project_id", "audience", "action", "target_type")
      DO UPDATE SET "event_count" = "project_event_counts"."event_count" + 1;
    INSERT INTO "author_event_counts" ("author_id", "project_id", "audience", "action", "target_type", "event_count")
      VALUES (NEW."author_id", NEW."project_id", NEW."audience", NEW."action", coalesce(NEW."target_type", ''), 1)
      ON CONFLICT ("author_id", "project_id", "audience", "action", "target_type")
      DO UPDATE SET "event_count" = "author_event_counts"."event_count" + 1;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "events_count_insert" AFTER INSERT ON "events" FOR EACH ROW EXECUTE FUNCTION "count_inserted_event"();--> statement-breakpoint
-- A project or author being deleted has no counts left to update: nothing is inserted for them.
CREATE FUNCTION "count_deleted_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "project_event_counts" AS c SET "event_count" = c."event_count" - gone."events"
    FROM (SELECT "project_id", "audience", "action", coalesce("target_type", '') AS "target_type", count(*) AS "events"
          FROM "deleted_events" WHERE "project_id" IS NOT NULL GROUP BY 1, 2, 3, 4) AS gone
    WHERE c."project_id" = gone."project_id" AND c."audience" = gone."audience" AND c."action" = gone."action"
      AND c."target_type" = gone."target_type";
  UPDATE "author_event_counts" AS c SET "event_count" = c."event_count" - gone."events"
    FROM (SELECT "author_id", "project_id", "audience", "action", coalesce("target_type", '') AS "target_type", count(*) AS "events"
          FROM "deleted_events" WHERE "project_id" IS NOT NULL GROUP BY 1, 2, 3, 4, 5) AS gone
    WHERE c."author_id" = gone."author_id" AND c."project_id" = gone."project_id" AND c."audience" = gone."audience"
      AND c."action" = gone."action" AND c."target_type" = gone."target_type";
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "events_count_delete" AFTER DELETE ON "events" REFERENCING OLD TABLE AS "deleted_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "count_deleted_events"();--> statement-breakpoint
CREATE FUNCTION "count_updated_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH "changes" AS (
    SELECT "author_id", "project_id", "audience", "action", "target_type", sum("change") AS "change" FROM (
        SELECT "author_id", "project_id", "audience", "action", coalesce("target_type", '') AS "target_type", -1 AS "change" FROM "old_events"
        UNION ALL
        SELECT "author_id", "project_id", "audience", "action", coalesce("target_type", ''), 1 FROM "new_events"
      ) AS "changed"
      WHERE "project_id" IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5 HAVING sum("change") <> 0
  ), "projects_counted" AS (
    INSERT INTO "project_event_counts" ("project_id", "audience", "action", "target_type", "event_count")
      SELECT "project_id", "audience", "action", "target_type", sum("change") FROM "changes" GROUP BY 1, 2, 3, 4
      ON CONFLICT ("project_id", "audience", "action", "target_type")
      DO UPDATE SET "event_count" = "project_event_counts"."event_count" + excluded."event_count"
  )
  INSERT INTO "author_event_counts" ("author_id", "project_id", "audience", "action", "target_type", "event_count")
    SELECT "author_id", "project_id", "audience", "action", "target_type", "change" FROM "changes"
    ON CONFLICT ("author_id", "project_id", "audience", "action", "target_type")
    DO UPDATE SET "event_count" = "author_event_counts"."event_count" + excluded."event_count";
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "events_count_update" AFTER UPDATE ON "events" REFERENCING OLD TABLE AS "old_events" NEW TABLE AS "new_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "count_updated_events"();--> statement-breakpoint
CREATE INDEX "issues_confidential_author_idx" ON "issues" USING btree ("author_id","project_id") WHERE "issues"."confidential";
