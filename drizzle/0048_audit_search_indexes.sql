DROP INDEX "audit_events_action_idx";--> statement-breakpoint
DROP INDEX "audit_events_actor_idx";--> statement-breakpoint
DROP INDEX "audit_events_subject_idx";--> statement-breakpoint
DROP INDEX "audit_events_app_idx";--> statement-breakpoint
CREATE INDEX "audit_events_actor_label_idx" ON "audit_events" USING btree ("org_id",lower("actor_label"),"id");--> statement-breakpoint
CREATE INDEX "audit_events_subject_label_idx" ON "audit_events" USING btree ("org_id",lower("subject_label"),"id");--> statement-breakpoint
CREATE INDEX "audit_events_action_idx" ON "audit_events" USING btree ("org_id","action","id");--> statement-breakpoint
CREATE INDEX "audit_events_actor_idx" ON "audit_events" USING btree ("org_id","actor_id","id");--> statement-breakpoint
CREATE INDEX "audit_events_subject_idx" ON "audit_events" USING btree ("org_id","subject_id","id");--> statement-breakpoint
CREATE INDEX "audit_events_app_idx" ON "audit_events" USING btree ("org_id","app_id","id");