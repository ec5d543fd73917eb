CREATE TABLE "agent_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" text NOT NULL,
	"org_id" uuid NOT NULL,
	"kid" text NOT NULL,
	"alg" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"created_by_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "workload_trust_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"agent_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"issuer" text NOT NULL,
	"jwks_uri" text,
	"jwks" jsonb,
	"audience" text,
	"subject" text,
	"claims" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "workload_trust_rules_keys" CHECK (("workload_trust_rules"."jwks_uri" IS NULL) <> ("workload_trust_rules"."jwks" IS NULL)),
	CONSTRAINT "workload_trust_rules_narrow" CHECK ("workload_trust_rules"."subject" IS NOT NULL OR "workload_trust_rules"."claims" <> '{}'::jsonb)
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "suspended_reason" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "suspension_told_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "sponsor_team_id" uuid;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "jwks_uri" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agent_keys" ADD CONSTRAINT "agent_keys_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_keys" ADD CONSTRAINT "agent_keys_agent_id_org_id_agents_id_org_id_fk" FOREIGN KEY ("agent_id","org_id") REFERENCES "public"."agents"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workload_trust_rules" ADD CONSTRAINT "workload_trust_rules_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workload_trust_rules" ADD CONSTRAINT "workload_trust_rules_agent_id_org_id_agents_id_org_id_fk" FOREIGN KEY ("agent_id","org_id") REFERENCES "public"."agents"("id","org_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_keys_agent_kid_key" ON "agent_keys" USING btree ("agent_id","kid");--> statement-breakpoint
CREATE INDEX "workload_trust_rules_org_issuer_idx" ON "workload_trust_rules" USING btree ("org_id","issuer");--> statement-breakpoint
CREATE INDEX "workload_trust_rules_issuer_idx" ON "workload_trust_rules" USING btree ("issuer");--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_sponsor_team_id_teams_id_fk" FOREIGN KEY ("sponsor_team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_suspended_reason" CHECK ("suspended_reason" IS NULL OR ("suspended_reason" = 'owner_left' AND "disabled_at" IS NOT NULL));
--> statement-breakpoint
ALTER TABLE "agent_keys" ADD CONSTRAINT "agent_keys_alg" CHECK ("alg" IN ('ES256', 'RS256', 'PS256', 'EdDSA'));
--> statement-breakpoint
ALTER TABLE "workload_trust_rules" ADD CONSTRAINT "workload_trust_rules_kind" CHECK ("kind" IN ('kubernetes', 'spiffe', 'ci', 'generic'));
--> statement-breakpoint
-- An agent's own OAuth client is read on every token request through the read cache (lib/clients/agent-clients.ts):
-- a change to the agent (disabled, keys, JWKS URL) drops it on every instance at once.
CREATE TRIGGER agents_cache_notify AFTER INSERT OR UPDATE OR DELETE ON agents FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('agents', 'id');
--> statement-breakpoint
CREATE TRIGGER agent_keys_cache_notify AFTER INSERT OR UPDATE OR DELETE ON agent_keys FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('agents', 'agent_id');
--> statement-breakpoint
CREATE TRIGGER agents_cache_truncate AFTER TRUNCATE ON agents FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
--> statement-breakpoint
CREATE TRIGGER agent_keys_cache_truncate AFTER TRUNCATE ON agent_keys FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
--> statement-breakpoint
-- Agents' lifecycle and credentials become webhook events (family `agent`, lib/webhooks/events.ts).
CREATE OR REPLACE FUNCTION portico_webhook_event_type(action text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN action IN ('approval.requested', 'approval.expired', 'approval.escalated', 'approval.grant_revoked') THEN action
    WHEN action IN ('approval.approved', 'approval.denied', 'approval.cancelled') THEN 'approval.decided'
    WHEN action = 'mcp.tool_confirmed' THEN 'confirmation.confirmed'
    WHEN action = 'mcp.tool_denied' THEN 'confirmation.denied'
    WHEN action LIKE 'confirmation.%' THEN action
    WHEN action LIKE 'member.%' THEN action
    WHEN action IN ('invitation.sent', 'invitation.resent', 'invitation.accepted', 'invitation.revoked') THEN 'member.' || replace(action, '.', '_')
    WHEN action LIKE 'app.%' THEN action
    WHEN action IN ('gateway.server_added', 'gateway.server_removed', 'gateway.server_disabled', 'gateway.server_enabled', 'gateway.tool_added', 'gateway.tool_changed', 'gateway.tool_removed', 'gateway.tool_approved', 'gateway.tool_level_changed', 'gateway.tool_permission_changed', 'gateway.server_credential_changed') THEN action
    WHEN action IN ('agent.disabled', 'agent.enabled', 'agent.suspended', 'agent.deleted', 'agent.key_added', 'agent.key_removed', 'agent.jwks_uri_changed', 'agent.trust_rule_added', 'agent.trust_rule_removed', 'agent.sponsor_changed') THEN action
    WHEN action IN ('second_factor.enrolled', 'second_factor.removed', 'second_factor.recovery_codes_replaced', 'password.changed', 'password.set_up', 'password.reset_requested', 'password.reset_completed', 'password.reset_link_issued', 'password.reset_link_sent', 'person.signed_out_everywhere', 'person.session_ended', 'org.second_factor_policy_updated', 'client.revoked', 'org.domain_added', 'org.domain_verified', 'org.domain_removed')
      THEN 'security.' || replace(action, '.', '_')
    ELSE NULL
  END
$$;
