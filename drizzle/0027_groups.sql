CREATE TABLE "group_members" (
	"group_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"access_level" integer NOT NULL,
	"expires_at" date,
	"created_by_id" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "group_members_group_id_user_id_pk" PRIMARY KEY("group_id","user_id")
);
--> statement-breakpoint
DROP INDEX "namespaces_path_lower_key";--> statement-breakpoint
ALTER TABLE "namespaces" ALTER COLUMN "owner_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "namespaces" ADD COLUMN "parent_id" integer;--> statement-breakpoint
ALTER TABLE "namespaces" ADD COLUMN "full_path" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "namespaces" ADD COLUMN "traversal_ids" integer[] DEFAULT '{}'::integer[] NOT NULL;--> statement-breakpoint
ALTER TABLE "namespaces" ADD COLUMN "full_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "namespaces" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "namespaces" ADD COLUMN "visibility" text DEFAULT 'public' NOT NULL;--> statement-breakpoint
ALTER TABLE "namespaces" ADD COLUMN "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
UPDATE "namespaces" SET "full_path" = "path", "full_name" = "name", "traversal_ids" = ARRAY["id"];--> statement-breakpoint
ALTER TABLE "application_settings" ADD COLUMN "can_create_group" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "group_members" ADD CONSTRAINT "group_members_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_members" ADD CONSTRAINT "group_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_members" ADD CONSTRAINT "group_members_created_by_id_users_id_fk" FOREIGN KEY ("created_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "group_members_user_id_idx" ON "group_members" USING btree ("user_id","group_id");--> statement-breakpoint
CREATE INDEX "group_members_group_created_idx" ON "group_members" USING btree ("group_id","created_at","user_id");--> statement-breakpoint
CREATE INDEX "group_members_expires_at_idx" ON "group_members" USING btree ("expires_at") WHERE "group_members"."expires_at" is not null;--> statement-breakpoint
CREATE INDEX "group_members_created_by_idx" ON "group_members" USING btree ("created_by_id") WHERE "group_members"."created_by_id" is not null;--> statement-breakpoint
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_parent_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."namespaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "namespaces_full_path_lower_key" ON "namespaces" USING btree (lower("full_path"));--> statement-breakpoint
CREATE INDEX "namespaces_traversal_ids_idx" ON "namespaces" USING btree ("traversal_ids");--> statement-breakpoint
CREATE INDEX "namespaces_parent_name_idx" ON "namespaces" USING btree ("parent_id","name","id") WHERE "namespaces"."parent_id" is not null;--> statement-breakpoint
CREATE INDEX "namespaces_group_visibility_name_idx" ON "namespaces" USING btree ("visibility","name","id") WHERE "namespaces"."kind" = 'group';--> statement-breakpoint
CREATE INDEX "namespaces_group_visibility_path_idx" ON "namespaces" USING btree ("visibility","path","id") WHERE "namespaces"."kind" = 'group';--> statement-breakpoint
CREATE INDEX "namespaces_group_visibility_id_idx" ON "namespaces" USING btree ("visibility","id") WHERE "namespaces"."kind" = 'group';--> statement-breakpoint
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_kind_owner" CHECK (("namespaces"."kind" = 'user') = ("namespaces"."owner_id" is not null));--> statement-breakpoint
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_user_top_level" CHECK ("namespaces"."kind" = 'group' or "namespaces"."parent_id" is null);--> statement-breakpoint
-- A namespace's full path, full name and traversal ids come from its parent's, on insert and whenever its path, name
-- or parent changes; the change then moves on to its children, whose own update moves their children in turn.
CREATE FUNCTION namespaces_place() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.parent_id IS NULL THEN
    NEW.full_path := NEW.path;
    NEW.full_name := NEW.name;
    NEW.traversal_ids := ARRAY[NEW.id];
  ELSE
    SELECT parent.full_path || '/' || NEW.path, parent.full_name || ' / ' || NEW.name, parent.traversal_ids || NEW.id
      INTO NEW.full_path, NEW.full_name, NEW.traversal_ids
      FROM namespaces parent WHERE parent.id = NEW.parent_id;
    IF array_position(NEW.traversal_ids, NEW.id) < cardinality(NEW.traversal_ids) THEN
      RAISE EXCEPTION 'a namespace cannot be moved below itself' USING ERRCODE = 'check_violation', CONSTRAINT = 'namespaces_no_cycle';
    END IF;
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER namespaces_place BEFORE INSERT OR UPDATE OF path, name, parent_id ON namespaces
  FOR EACH ROW EXECUTE FUNCTION namespaces_place();--> statement-breakpoint
CREATE FUNCTION namespaces_move_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE namespaces SET parent_id = parent_id WHERE parent_id = NEW.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER namespaces_move_children AFTER UPDATE OF path, name, parent_id ON namespaces
  FOR EACH ROW WHEN (OLD.full_path IS DISTINCT FROM NEW.full_path OR OLD.full_name IS DISTINCT FROM NEW.full_name)
  EXECUTE FUNCTION namespaces_move_children();
