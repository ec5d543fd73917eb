CREATE TYPE "public"."connection_mode" AS ENUM('own', 'delegated');--> statement-breakpoint
CREATE TABLE "agent_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" text NOT NULL,
	"org_id" uuid NOT NULL,
	"app_id" uuid NOT NULL,
	"mode" "connection_mode" NOT NULL,
	"delegate_user_id" uuid,
	"created_by_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_connections_mode_exclusive" CHECK (("agent_connections"."mode" = 'own' AND "agent_connections"."delegate_user_id" IS NULL) OR ("agent_connections"."mode" = 'delegated' AND "agent_connections"."delegate_user_id" IS NOT NULL))
);
--> statement-breakpoint
CREATE TABLE "agent_grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" text NOT NULL,
	"org_id" uuid NOT NULL,
	"app_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_grants_scope_format" CHECK ("agent_grants"."scope" ~ '^[A-Za-z0-9:._-]{1,64}$')
);
--> statement-breakpoint
ALTER TABLE "agent_connections" ADD CONSTRAINT "agent_connections_delegate_user_id_users_id_fk" FOREIGN KEY ("delegate_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_connections" ADD CONSTRAINT "agent_connections_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_connections" ADD CONSTRAINT "agent_connections_agent_id_org_id_agents_id_org_id_fk" FOREIGN KEY ("agent_id","org_id") REFERENCES "public"."agents"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_connections" ADD CONSTRAINT "agent_connections_app_id_org_id_apps_id_org_id_fk" FOREIGN KEY ("app_id","org_id") REFERENCES "public"."apps"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_grants" ADD CONSTRAINT "agent_grants_agent_id_org_id_agents_id_org_id_fk" FOREIGN KEY ("agent_id","org_id") REFERENCES "public"."agents"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_grants" ADD CONSTRAINT "agent_grants_app_id_org_id_apps_id_org_id_fk" FOREIGN KEY ("app_id","org_id") REFERENCES "public"."apps"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_connections_agent_app_key" ON "agent_connections" USING btree ("agent_id","app_id");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_grants_agent_app_scope_key" ON "agent_grants" USING btree ("agent_id","app_id","scope");