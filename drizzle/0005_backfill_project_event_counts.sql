-- Counts for the events that existed before project_event_counts did.
INSERT INTO "project_event_counts" ("project_id", "event_count")
SELECT "project_id", count(*) FROM "events" WHERE "project_id" IS NOT NULL GROUP BY "project_id"
ON CONFLICT ("project_id") DO UPDATE SET "event_count" = EXCLUDED."event_count";
