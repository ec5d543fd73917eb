CREATE TABLE "app_permissions" (
	"app_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"description" text NOT NULL,
	"added" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone,
	CONSTRAINT "app_permissions_app_id_scope_pk" PRIMARY KEY("app_id","scope"),
	CONSTRAINT "app_permissions_scope_token" CHECK ("app_permissions"."scope" ~ '^[A-Za-z0-9:._-]{1,64}$'),
	CONSTRAINT "app_permissions_description_length" CHECK (char_length("app_permissions"."description") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "app_permissions" ADD CONSTRAINT "app_permissions_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;