CREATE TABLE "audit_archive_segments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain" text NOT NULL,
	"from_seq" bigint NOT NULL,
	"to_seq" bigint NOT NULL,
	"prev_hash" text NOT NULL,
	"last_hash" text NOT NULL,
	"events" integer NOT NULL,
	"file" text NOT NULL,
	"file_sha256" text NOT NULL,
	"archived_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "audit_retention_days" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_archive_segments_chain_from_key" ON "audit_archive_segments" USING btree ("chain","from_seq");--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_audit_retention_days" CHECK ("organizations"."audit_retention_days" IS NULL OR "organizations"."audit_retention_days" BETWEEN 30 AND 36500);