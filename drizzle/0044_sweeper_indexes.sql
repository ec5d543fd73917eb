CREATE INDEX "account_links_expires_idx" ON "account_links" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "console_sessions_expires_idx" ON "console_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oidc_payloads_consumed_refresh_idx" ON "oidc_payloads" USING btree ("consumed_at") WHERE "oidc_payloads"."consumed_at" IS NOT NULL AND "oidc_payloads"."kind" = 'RefreshToken';--> statement-breakpoint
CREATE INDEX "oidc_payloads_grant_expires_idx" ON "oidc_payloads" USING btree ("expires_at") WHERE "oidc_payloads"."kind" = 'Grant';--> statement-breakpoint
CREATE INDEX "signed_request_nonces_expires_idx" ON "signed_request_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "central_sessions_expires_idx" ON "central_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "decision_nonces_expires_idx" ON "decision_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "outbound_deliveries_finished_idx" ON "outbound_deliveries" USING btree (coalesce("delivered_at", "failed_at")) WHERE "outbound_deliveries"."delivered_at" IS NOT NULL OR "outbound_deliveries"."failed_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "pending_sign_ins_expires_idx" ON "pending_sign_ins" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "notification_log_sent_idx" ON "notification_log" USING btree ("created_at") WHERE "notification_log"."sent_at" IS NOT NULL;