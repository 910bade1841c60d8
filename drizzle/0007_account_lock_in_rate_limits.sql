ALTER TABLE "users" DROP COLUMN "failed_sign_in_attempts";--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "locked_until";