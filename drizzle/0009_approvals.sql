CREATE TYPE "public"."approval_kind" AS ENUM('root_access', 'sensitive_access');--> statement-breakpoint
CREATE TYPE "public"."approval_profile" AS ENUM('read', 'work', 'compose');--> statement-breakpoint
CREATE TYPE "public"."approval_state" AS ENUM('pending', 'approved', 'denied', 'cancelled');--> statement-breakpoint
CREATE TABLE "app_operators" (
	"app_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_operators_app_id_user_id_pk" PRIMARY KEY("app_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "approval_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"org_id" uuid NOT NULL,
	"app_id" uuid NOT NULL,
	"subject_user_id" uuid NOT NULL,
	"actor" text NOT NULL,
	"kind" "approval_kind" NOT NULL,
	"resource" text,
	"profile" "approval_profile",
	"granted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoked_by" text
);
--> statement-breakpoint
CREATE TABLE "approval_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"app_id" uuid NOT NULL,
	"subject_user_id" uuid NOT NULL,
	"actor" text DEFAULT '' NOT NULL,
	"client_id" text NOT NULL,
	"kind" "approval_kind" NOT NULL,
	"resource" text,
	"profile" "approval_profile",
	"duration_seconds" integer,
	"reason" text NOT NULL,
	"fingerprint" text NOT NULL,
	"central_eligible" boolean NOT NULL,
	"state" "approval_state" DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	CONSTRAINT "approval_requests_decided" CHECK (("approval_requests"."state" = 'pending') = ("approval_requests"."decided_at" IS NULL)),
	CONSTRAINT "approval_requests_shape" CHECK (("approval_requests"."kind" = 'root_access' AND "approval_requests"."resource" IS NULL AND "approval_requests"."profile" IS NULL) OR ("approval_requests"."kind" = 'sensitive_access' AND "approval_requests"."resource" IS NOT NULL AND "approval_requests"."profile" IS NOT NULL))
);
--> statement-breakpoint
CREATE TABLE "central_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"credential_version" integer NOT NULL,
	"origin" text NOT NULL,
	"installation" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "decision_nonces" (
	"nonce_hash" text PRIMARY KEY NOT NULL,
	"session_token_hash" text NOT NULL,
	"request_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"installation" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_operators" ADD CONSTRAINT "app_operators_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_operators" ADD CONSTRAINT "app_operators_app_id_org_id_apps_id_org_id_fk" FOREIGN KEY ("app_id","org_id") REFERENCES "public"."apps"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_grants" ADD CONSTRAINT "approval_grants_request_id_approval_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."approval_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_subject_user_id_users_id_fk" FOREIGN KEY ("subject_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD CONSTRAINT "approval_requests_app_id_org_id_apps_id_org_id_fk" FOREIGN KEY ("app_id","org_id") REFERENCES "public"."apps"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "central_sessions" ADD CONSTRAINT "central_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "decision_nonces" ADD CONSTRAINT "decision_nonces_session_token_hash_central_sessions_token_hash_fk" FOREIGN KEY ("session_token_hash") REFERENCES "public"."central_sessions"("token_hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "decision_nonces" ADD CONSTRAINT "decision_nonces_request_id_approval_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."approval_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "approval_grants_request_key" ON "approval_grants" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "approval_grants_subject_idx" ON "approval_grants" USING btree ("subject_user_id","app_id");--> statement-breakpoint
CREATE INDEX "approval_requests_subject_pending_idx" ON "approval_requests" USING btree ("subject_user_id","expires_at") WHERE "approval_requests"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "approval_requests_app_pending_idx" ON "approval_requests" USING btree ("app_id","expires_at") WHERE "approval_requests"."state" = 'pending';