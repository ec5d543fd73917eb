-- The audit search's filters as indexes that end with the event's id, so that a page is read newest first from the
-- index (lib/audit/events.ts; the scale bench found an actor's search reading two million events). New names, and
-- IF NOT EXISTS: on a large installation, build them first without blocking writes (docs/deploy.md, "Upgrading to
-- migrations 0048 and 0049"), and this migration only drops the old ones. Edited by hand after drizzle-kit generate.
DROP INDEX IF EXISTS "audit_events_action_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "audit_events_actor_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "audit_events_subject_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "audit_events_app_idx";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_events_actor_label_page_idx" ON "audit_events" USING btree ("org_id",lower("actor_label"),"id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_events_subject_label_page_idx" ON "audit_events" USING btree ("org_id",lower("subject_label"),"id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_events_action_page_idx" ON "audit_events" USING btree ("org_id","action","id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_events_actor_page_idx" ON "audit_events" USING btree ("org_id","actor_id","id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_events_subject_page_idx" ON "audit_events" USING btree ("org_id","subject_id","id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_events_app_page_idx" ON "audit_events" USING btree ("org_id","app_id","id");
