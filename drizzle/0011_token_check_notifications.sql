-- Every process keeps recent token checks in memory (lib/token-checks). Any change to a row a check was built from
-- notifies channel "token_checks" with "<kind>:<id>"; PostgreSQL delivers it to every listening process when the
-- changing transaction commits, so no code path can change a token, grant, application or user without every
-- process hearing of it.
CREATE FUNCTION "notify_token_checks"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('token_checks', TG_ARGV[0] || ':' || OLD.id);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "users_token_checks_update" AFTER UPDATE ON "users"
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION "notify_token_checks"('user');
--> statement-breakpoint
CREATE TRIGGER "users_token_checks_delete" AFTER DELETE ON "users"
  FOR EACH ROW EXECUTE FUNCTION "notify_token_checks"('user');
--> statement-breakpoint
CREATE TRIGGER "oauth_applications_token_checks" AFTER UPDATE OR DELETE ON "oauth_applications"
  FOR EACH ROW EXECUTE FUNCTION "notify_token_checks"('application');
--> statement-breakpoint
CREATE TRIGGER "oauth_grants_token_checks" AFTER UPDATE OR DELETE ON "oauth_grants"
  FOR EACH ROW EXECUTE FUNCTION "notify_token_checks"('grant');
--> statement-breakpoint
-- refreshed_at is only ever set with revoked_at.
CREATE TRIGGER "oauth_access_tokens_token_checks"
  AFTER UPDATE OF "token_digest", "grant_id", "application_id", "user_id", "scopes", "expires_at", "revoked_at" OR DELETE
  ON "oauth_access_tokens"
  FOR EACH ROW EXECUTE FUNCTION "notify_token_checks"('oauth_access_token');
--> statement-breakpoint
-- Not last_used_at: each process keeps its own note of when it last recorded a token's use.
CREATE TRIGGER "personal_access_tokens_token_checks"
  AFTER UPDATE OF "token_digest", "user_id", "scopes", "expires_at", "revoked" OR DELETE
  ON "personal_access_tokens"
  FOR EACH ROW EXECUTE FUNCTION "notify_token_checks"('personal_access_token');
