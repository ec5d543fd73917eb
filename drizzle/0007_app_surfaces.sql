CREATE TABLE "app_surfaces" (
	"app_id" uuid PRIMARY KEY NOT NULL,
	"secret_encrypted" text,
	"secret_created_at" timestamp with time zone,
	"declaration" jsonb,
	"declared_contract_version" integer,
	"declared_at" timestamp with time zone,
	"last_check" jsonb,
	"last_checked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "signed_request_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_surfaces" ADD CONSTRAINT "app_surfaces_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;