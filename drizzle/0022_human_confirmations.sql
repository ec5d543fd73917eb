-- Open challenges live at most five minutes and were all in-band until now: they go, rather than be given a page.
DELETE FROM "confirmation_challenges";--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "id" text NOT NULL;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "app_id" uuid;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "risk_level" text NOT NULL;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "description" text NOT NULL;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "warning" text;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "canonical_arguments" text NOT NULL;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "needs_human" boolean NOT NULL;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "confirmed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "denied_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "decided_by" uuid;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "decided_with" text;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD COLUMN "created_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD CONSTRAINT "confirmation_challenges_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD CONSTRAINT "confirmation_challenges_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD CONSTRAINT "confirmation_challenges_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "confirmation_challenges_subject_idx" ON "confirmation_challenges" USING btree ("subject");--> statement-breakpoint
ALTER TABLE "confirmation_challenges" ADD CONSTRAINT "confirmation_challenges_id_unique" UNIQUE("id");