CREATE TABLE "assertion_uses" (
	"key" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "remote_mcp_servers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"authorization_server" text NOT NULL,
	"resource" text NOT NULL,
	"remote_client_id" text NOT NULL,
	"allowed_scopes" text[] DEFAULT '{}'::text[] NOT NULL,
	"permissions_app_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "remote_mcp_servers_org_name_key" UNIQUE("org_id","name"),
	CONSTRAINT "remote_mcp_servers_target_key" UNIQUE("org_id","authorization_server","resource")
);
--> statement-breakpoint
CREATE TABLE "trusted_assertion_issuers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"connection_id" uuid,
	"issuer" text NOT NULL,
	"jwks_uri" text,
	"tenant" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trusted_assertion_issuers_org_issuer_key" UNIQUE NULLS NOT DISTINCT("org_id","issuer","tenant"),
	CONSTRAINT "trusted_assertion_issuers_source" CHECK (("trusted_assertion_issuers"."connection_id" IS NULL) <> ("trusted_assertion_issuers"."jwks_uri" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "client_app_links" ADD COLUMN "first_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "client_app_links" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "clients" ADD COLUMN "first_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "clients" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "remote_mcp_servers" ADD CONSTRAINT "remote_mcp_servers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remote_mcp_servers" ADD CONSTRAINT "remote_mcp_servers_permissions_app_id_apps_id_fk" FOREIGN KEY ("permissions_app_id") REFERENCES "public"."apps"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trusted_assertion_issuers" ADD CONSTRAINT "trusted_assertion_issuers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trusted_assertion_issuers" ADD CONSTRAINT "trusted_assertion_issuers_connection_id_identity_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."identity_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "assertion_uses_expires_idx" ON "assertion_uses" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "clients_dynamic_use_idx" ON "clients" USING btree ("kind","last_used_at");--> statement-breakpoint
-- Clients that exist before their use was recorded: their history is unknown, so they count as used now (the clean-up
-- of dynamic registrations, lib/clients/cleanup.ts, then gives each the full 90 days from this upgrade).
UPDATE "clients" SET "first_used_at" = now(), "last_used_at" = now() WHERE "kind" <> 'app';--> statement-breakpoint
UPDATE "client_app_links" SET "first_used_at" = "created_at", "last_used_at" = now();
