ALTER TABLE "oidc_payloads" ADD COLUMN "rotated_from" text;--> statement-breakpoint
CREATE INDEX "oidc_payloads_rotated_from_idx" ON "oidc_payloads" USING btree ("rotated_from");