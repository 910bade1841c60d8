CREATE INDEX "alert_silences_expired_idx" ON "alert_silences" USING btree ("ends_at") WHERE "alert_silences"."ends_at" is not null;--> statement-breakpoint
-- Every process keeps each project's silences in memory (lib/alerts/silence-cache.ts). Any change to a silence
-- notifies channel "alert_silences" with "project:<id>"; PostgreSQL delivers it to every listening process when the
-- changing transaction commits (once per project and transaction, as it folds equal notifications), so no code path,
-- a project's deletion included, can change a project's silences without every process hearing of it.
CREATE FUNCTION "notify_alert_silences"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('alert_silences', 'project:' || coalesce(NEW.project_id, OLD.project_id));
  IF TG_OP = 'UPDATE' AND NEW.project_id <> OLD.project_id THEN
    PERFORM pg_notify('alert_silences', 'project:' || OLD.project_id);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "alert_silences_notify" AFTER INSERT OR UPDATE OR DELETE ON "alert_silences"
  FOR EACH ROW EXECUTE FUNCTION "notify_alert_silences"();
