CREATE TABLE "approved_action_uses" (
	"token_id" text PRIMARY KEY NOT NULL,
	"app_id" uuid NOT NULL,
	"used_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "ciba_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "backchannel_request_sealed" text;--> statement-breakpoint
ALTER TABLE "approved_action_uses" ADD CONSTRAINT "approved_action_uses_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approved_action_uses_expires_idx" ON "approved_action_uses" USING btree ("expires_at");--> statement-breakpoint
