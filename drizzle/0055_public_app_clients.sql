-- An app's own client may be public: a single-page or native app signs its people in with PKCE and no secret (issue 54).
ALTER TABLE "clients" DROP CONSTRAINT "clients_app_kind";--> statement-breakpoint
ALTER TABLE "clients" ADD CONSTRAINT "clients_app_kind" CHECK ("clients"."kind" <> 'app' OR ("clients"."app_id" IS NOT NULL AND "clients"."org_id" IS NOT NULL));