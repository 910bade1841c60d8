ALTER TABLE "issues" ADD COLUMN "description_html" text;--> statement-breakpoint
ALTER TABLE "issues" ADD COLUMN "cached_markdown_version" integer;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "note_html" text;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "cached_markdown_version" integer;