CREATE TABLE "mcp_elicitations" (
	"id" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"approval_request_id" text NOT NULL,
	"mode" text NOT NULL,
	"outcome" text,
	"intent" text,
	"answered_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "central_sessions" ADD COLUMN "surface" text DEFAULT 'external' NOT NULL;--> statement-breakpoint
ALTER TABLE "mcp_elicitations" ADD CONSTRAINT "mcp_elicitations_session_id_mcp_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."mcp_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_elicitations_expires_idx" ON "mcp_elicitations" USING btree ("expires_at");