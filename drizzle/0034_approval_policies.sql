ALTER TYPE "public"."approval_state" ADD VALUE 'expired';--> statement-breakpoint
CREATE TABLE "approval_policies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"app_id" uuid,
	"kind" text NOT NULL,
	"deciders" text NOT NULL,
	"team_id" uuid,
	"user_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"quorum" integer DEFAULT 1 NOT NULL,
	"any_deny_ends" boolean DEFAULT true NOT NULL,
	"escalate_after_minutes" integer,
	"escalate_to" text,
	"escalate_team_id" uuid,
	"max_grant_seconds" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "approval_policies_quorum" CHECK ("approval_policies"."quorum" BETWEEN 1 AND 10),
	CONSTRAINT "approval_policies_escalation" CHECK (("approval_policies"."escalate_after_minutes" IS NULL) = ("approval_policies"."escalate_to" IS NULL) AND ("approval_policies"."escalate_after_minutes" IS NULL OR "approval_policies"."escalate_after_minutes" BETWEEN 1 AND 29)),
	CONSTRAINT "approval_policies_max_grant" CHECK ("approval_policies"."max_grant_seconds" IS NULL OR "approval_policies"."max_grant_seconds" BETWEEN 60 AND 2592000)
);
--> statement-breakpoint
CREATE TABLE "approval_votes" (
	"request_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"decision" text NOT NULL,
	"decided_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "approval_votes_request_id_user_id_pk" PRIMARY KEY("request_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "notification_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"org_id" uuid,
	"kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"summary" text NOT NULL,
	"link" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "notification_settings" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"approval_requests" boolean DEFAULT true NOT NULL,
	"approval_reminders" boolean DEFAULT true NOT NULL,
	"approval_escalations" boolean DEFAULT true NOT NULL,
	"confirmations" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "expiry_reported_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "policy_kind" text DEFAULT 'write' NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "policy_id" uuid;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "quorum" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "any_deny_ends" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "max_grant_seconds" integer;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "escalate_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "escalated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "reminded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_escalate_team_id_teams_id_fk" FOREIGN KEY ("escalate_team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_app_id_org_id_apps_id_org_id_fk" FOREIGN KEY ("app_id","org_id") REFERENCES "public"."apps"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_votes" ADD CONSTRAINT "approval_votes_request_id_approval_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."approval_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_votes" ADD CONSTRAINT "approval_votes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_log" ADD CONSTRAINT "notification_log_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "approval_policies_scope_key" ON "approval_policies" USING btree ("org_id",coalesce("app_id", '00000000-0000-0000-0000-000000000000'::uuid),"kind");--> statement-breakpoint
CREATE INDEX "notification_log_user_idx" ON "notification_log" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "notification_log_unsent_idx" ON "notification_log" USING btree ("created_at") WHERE "notification_log"."sent_at" IS NULL;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_policy_id_approval_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."approval_policies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approval_requests_pending_expiry_idx" ON "approval_requests" USING btree ("expires_at") WHERE "approval_requests"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "approval_requests_escalation_idx" ON "approval_requests" USING btree ("escalate_at") WHERE "approval_requests"."state" = 'pending' AND "approval_requests"."escalated_at" IS NULL;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_quorum" CHECK ("approval_requests"."quorum" BETWEEN 1 AND 10);