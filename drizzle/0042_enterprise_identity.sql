CREATE TABLE "external_identities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"connection_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_sign_in_at" timestamp with time zone,
	CONSTRAINT "external_identities_subject_key" UNIQUE("connection_id","issuer","subject"),
	CONSTRAINT "external_identities_connection_user_key" UNIQUE("connection_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "federated_sign_ins" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"connection_id" uuid NOT NULL,
	"stage" text DEFAULT 'started' NOT NULL,
	"continuation" jsonb NOT NULL,
	"request_id" text,
	"user_id" uuid,
	"assertion" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"default_role" "membership_role" DEFAULT 'member' NOT NULL,
	"oidc_issuer" text,
	"oidc_client_id" text,
	"oidc_client_secret_sealed" text,
	"saml_idp_entity_id" text,
	"saml_sso_url" text,
	"saml_certificates" text,
	"email_claim" text DEFAULT 'email' NOT NULL,
	"name_claim" text DEFAULT 'name' NOT NULL,
	"groups_claim" text DEFAULT 'groups' NOT NULL,
	"group_teams" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "identity_connections_org_name_key" UNIQUE("org_id","name"),
	CONSTRAINT "identity_connections_kind_fields" CHECK (("identity_connections"."kind" = 'oidc' AND "identity_connections"."oidc_issuer" IS NOT NULL AND "identity_connections"."oidc_client_id" IS NOT NULL) OR ("identity_connections"."kind" = 'saml' AND "identity_connections"."saml_idp_entity_id" IS NOT NULL AND "identity_connections"."saml_sso_url" IS NOT NULL AND "identity_connections"."saml_certificates" IS NOT NULL))
);
--> statement-breakpoint
CREATE TABLE "saml_assertion_ids" (
	"connection_id" uuid NOT NULL,
	"assertion_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "saml_assertion_ids_connection_id_assertion_id_pk" PRIMARY KEY("connection_id","assertion_id")
);
--> statement-breakpoint
CREATE TABLE "scim_groups" (
	"team_id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scim_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "scim_users" (
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"user_name" text NOT NULL,
	"external_id" text,
	"active" boolean DEFAULT true NOT NULL,
	"created_by_provisioning" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scim_users_org_id_user_id_pk" PRIMARY KEY("org_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "org_domains" ADD COLUMN "connection_id" uuid;--> statement-breakpoint
ALTER TABLE "external_identities" ADD CONSTRAINT "external_identities_connection_id_identity_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."identity_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_identities" ADD CONSTRAINT "external_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federated_sign_ins" ADD CONSTRAINT "federated_sign_ins_connection_id_identity_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."identity_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federated_sign_ins" ADD CONSTRAINT "federated_sign_ins_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity_connections" ADD CONSTRAINT "identity_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saml_assertion_ids" ADD CONSTRAINT "saml_assertion_ids_connection_id_identity_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."identity_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_groups" ADD CONSTRAINT "scim_groups_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_groups" ADD CONSTRAINT "scim_groups_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_tokens" ADD CONSTRAINT "scim_tokens_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_tokens" ADD CONSTRAINT "scim_tokens_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_users" ADD CONSTRAINT "scim_users_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_users" ADD CONSTRAINT "scim_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "external_identities_user_idx" ON "external_identities" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "federated_sign_ins_expires_idx" ON "federated_sign_ins" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "saml_assertion_ids_expires_idx" ON "saml_assertion_ids" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "scim_tokens_org_key" ON "scim_tokens" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "scim_tokens_hash_key" ON "scim_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "scim_users_org_user_name_key" ON "scim_users" USING btree ("org_id",lower("user_name"));--> statement-breakpoint
ALTER TABLE "org_domains" ADD CONSTRAINT "org_domains_connection_id_identity_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."identity_connections"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_domains" ADD CONSTRAINT "org_domains_connection_needs_verification" CHECK ("org_domains"."connection_id" IS NULL OR "org_domains"."verified_at" IS NOT NULL);