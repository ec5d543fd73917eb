CREATE TABLE "agent_users" (
	"agent_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_users_agent_id_user_id_pk" PRIMARY KEY("agent_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"owner_user_id" uuid NOT NULL,
	"disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_id_org_key" UNIQUE("id","org_id"),
	CONSTRAINT "agents_id_format" CHECK ("agents"."id" ~ '^agt_[A-Za-z0-9_-]{16,64}$')
);
--> statement-breakpoint
CREATE TABLE "client_app_links" (
	"client_id" text NOT NULL,
	"app_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "client_app_links_client_id_app_id_pk" PRIMARY KEY("client_id","app_id")
);
--> statement-breakpoint
CREATE TABLE "grant_bindings" (
	"grant_id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"app_id" uuid,
	"org_id" uuid,
	"resource" text NOT NULL,
	"account_id" uuid NOT NULL,
	"agent_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "grant_bindings_app_org_together" CHECK (("grant_bindings"."app_id" IS NULL) = ("grant_bindings"."org_id" IS NULL)),
	CONSTRAINT "grant_bindings_agent_needs_org" CHECK ("grant_bindings"."agent_id" IS NULL OR "grant_bindings"."org_id" IS NOT NULL)
);
--> statement-breakpoint
ALTER TABLE "agent_users" ADD CONSTRAINT "agent_users_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_users" ADD CONSTRAINT "agent_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_app_links" ADD CONSTRAINT "client_app_links_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_app_links" ADD CONSTRAINT "client_app_links_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_app_links" ADD CONSTRAINT "client_app_links_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grant_bindings" ADD CONSTRAINT "grant_bindings_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grant_bindings" ADD CONSTRAINT "grant_bindings_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grant_bindings" ADD CONSTRAINT "grant_bindings_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grant_bindings" ADD CONSTRAINT "grant_bindings_account_id_users_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grant_bindings" ADD CONSTRAINT "grant_bindings_agent_id_org_id_agents_id_org_id_fk" FOREIGN KEY ("agent_id","org_id") REFERENCES "public"."agents"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_users_user_idx" ON "agent_users" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "agents_org_idx" ON "agents" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "client_app_links_org_idx" ON "client_app_links" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "grant_bindings_client_app_idx" ON "grant_bindings" USING btree ("client_id","app_id");--> statement-breakpoint
CREATE INDEX "grant_bindings_account_idx" ON "grant_bindings" USING btree ("account_id");