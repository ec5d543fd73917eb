CREATE TABLE "gateway_servers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"app_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"resource" text NOT NULL,
	"credential_kind" text DEFAULT 'none' NOT NULL,
	"credential_header" text,
	"credential_sealed" text,
	"timeout_ms" integer DEFAULT 30000 NOT NULL,
	"max_response_bytes" integer DEFAULT 1048576 NOT NULL,
	"max_concurrent_calls" integer DEFAULT 8 NOT NULL,
	"status" text DEFAULT 'unknown' NOT NULL,
	"status_detail" text,
	"checked_at" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gateway_servers_org_slug_key" UNIQUE("org_id","slug"),
	CONSTRAINT "gateway_servers_resource_key" UNIQUE("resource"),
	CONSTRAINT "gateway_servers_app_key" UNIQUE("app_id"),
	CONSTRAINT "gateway_servers_credential_check" CHECK (("gateway_servers"."credential_kind" = 'none' AND "gateway_servers"."credential_sealed" IS NULL AND "gateway_servers"."credential_header" IS NULL) OR ("gateway_servers"."credential_kind" = 'header' AND "gateway_servers"."credential_sealed" IS NOT NULL AND "gateway_servers"."credential_header" IS NOT NULL)),
	CONSTRAINT "gateway_servers_status_check" CHECK ("gateway_servers"."status" IN ('unknown', 'ok', 'unreachable', 'invalid'))
);
--> statement-breakpoint
CREATE TABLE "gateway_tools" (
	"server_id" uuid NOT NULL,
	"name" text NOT NULL,
	"offered_definition" jsonb NOT NULL,
	"offered_digest" text NOT NULL,
	"approved_definition" jsonb,
	"approved_digest" text,
	"approved_at" timestamp with time zone,
	"approved_by" uuid,
	"proposed_level" text NOT NULL,
	"risk_level" text NOT NULL,
	"permission" text DEFAULT 'mcp' NOT NULL,
	"removed_at" timestamp with time zone,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gateway_tools_server_id_name_pk" PRIMARY KEY("server_id","name"),
	CONSTRAINT "gateway_tools_levels_check" CHECK ("gateway_tools"."risk_level" IN ('safe', 'caution', 'review', 'approval_required') AND "gateway_tools"."proposed_level" IN ('safe', 'caution', 'review', 'approval_required'))
);
--> statement-breakpoint
ALTER TABLE "gateway_servers" ADD CONSTRAINT "gateway_servers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway_servers" ADD CONSTRAINT "gateway_servers_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway_tools" ADD CONSTRAINT "gateway_tools_server_id_gateway_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."gateway_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway_tools" ADD CONSTRAINT "gateway_tools_approved_by_users_id_fk" FOREIGN KEY ("approved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- The gateway's changes of tools and servers are webhook events of their own family (lib/webhooks/events.ts); its
-- tool calls are not (they are audited, as Portico's own tool calls are).
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
    WHEN action IN ('second_factor.enrolled', 'second_factor.removed', 'second_factor.recovery_codes_replaced', 'password.changed', 'password.set_up', 'password.reset_requested', 'password.reset_completed', 'password.reset_link_issued', 'password.reset_link_sent', 'person.signed_out_everywhere', 'person.session_ended', 'org.second_factor_policy_updated', 'client.revoked', 'org.domain_added', 'org.domain_verified', 'org.domain_removed')
      THEN 'security.' || replace(action, '.', '_')
    ELSE NULL
  END
$$;
