CREATE TABLE "person_grants" (
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"app_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "person_grants_user_id_app_id_scope_pk" PRIMARY KEY("user_id","app_id","scope"),
	CONSTRAINT "person_grants_scope_format" CHECK ("person_grants"."scope" ~ '^[A-Za-z0-9:._-]{1,64}$')
);
--> statement-breakpoint
ALTER TABLE "person_grants" ADD CONSTRAINT "person_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "person_grants" ADD CONSTRAINT "person_grants_app_id_org_id_apps_id_org_id_fk" FOREIGN KEY ("app_id","org_id") REFERENCES "public"."apps"("id","org_id") ON DELETE cascade ON UPDATE no action;