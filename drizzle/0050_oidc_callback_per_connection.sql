-- Each OpenID Connect connection gets a redirect URI of its own (RFC 9700 §4.4.2: distinct redirect URIs against
-- mix-up), and a federated sign-in is named by a `state` apart from the secret its browser's cookie holds.
-- Edited by hand after drizzle-kit generate: connections made before this change keep the old shared callback for
-- 90 days, or until an admin switches them (docs/accounts.md), so that their sign-ins go on while the identity
-- provider's admin registers the new redirect URI; the shared callback then takes only responses whose `iss`
-- (RFC 9207) names the connection's issuer. Sign-ins in flight during the upgrade (at most 10 minutes old) have no
-- state of their own and end as expired.
ALTER TABLE "federated_sign_ins" ADD COLUMN "state_hash" text;--> statement-breakpoint
ALTER TABLE "identity_connections" ADD COLUMN "legacy_callback_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "federated_sign_ins" ADD CONSTRAINT "federated_sign_ins_state_hash_key" UNIQUE("state_hash");--> statement-breakpoint
UPDATE "identity_connections" SET "legacy_callback_until" = now() + interval '90 days' WHERE "kind" = 'oidc';
