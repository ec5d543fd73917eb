ALTER TABLE "organizations" ADD COLUMN "default_locale" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "locale" text;