CREATE TABLE "confirmation_challenges" (
	"nonce_hash" text PRIMARY KEY NOT NULL,
	"tool" text NOT NULL,
	"subject" text NOT NULL,
	"actor" text NOT NULL,
	"client_id" text NOT NULL,
	"arguments_digest" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"actor" text DEFAULT '' NOT NULL,
	"client_id" text NOT NULL,
	"protocol_version" text NOT NULL,
	"client_info" jsonb NOT NULL,
	"client_capabilities" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD CONSTRAINT "mcp_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "confirmation_challenges_expires_idx" ON "confirmation_challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "mcp_sessions_expires_idx" ON "mcp_sessions" USING btree ("expires_at");