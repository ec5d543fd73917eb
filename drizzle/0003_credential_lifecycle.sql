ALTER TABLE "apps" ADD COLUMN "dev_environment_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "clients" ADD COLUMN "rotation_ends_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "clients" ADD CONSTRAINT "clients_public_no_rotation" CHECK ("clients"."type" = 'confidential' OR "clients"."rotation_ends_at" IS NULL);