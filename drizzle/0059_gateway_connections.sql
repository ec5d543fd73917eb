CREATE TABLE "gateway_connections" (
	"server_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"tokens_sealed" text,
	"pending_state_hash" text,
	"pending_verifier_sealed" text,
	"pending_expires_at" timestamp with time zone,
	"discovery" jsonb,
	"revocation_endpoint" text,
	"connected_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gateway_connections_server_id_user_id_pk" PRIMARY KEY("server_id","user_id"),
	CONSTRAINT "gateway_connections_state_key" UNIQUE("pending_state_hash")
);
--> statement-breakpoint
ALTER TABLE "outbound_deliveries" DROP CONSTRAINT "outbound_deliveries_shape";--> statement-breakpoint
ALTER TABLE "gateway_servers" DROP CONSTRAINT "gateway_servers_credential_check";--> statement-breakpoint
ALTER TABLE "gateway_servers" ADD COLUMN "oauth_client_sealed" text;--> statement-breakpoint
ALTER TABLE "gateway_connections" ADD CONSTRAINT "gateway_connections_server_id_gateway_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."gateway_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway_connections" ADD CONSTRAINT "gateway_connections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_deliveries" ADD CONSTRAINT "outbound_deliveries_shape" CHECK (("outbound_deliveries"."channel" = 'mail' AND "outbound_deliveries"."sealed_payload" IS NOT NULL) OR ("outbound_deliveries"."channel" = 'webhook' AND "outbound_deliveries"."endpoint_id" IS NOT NULL AND "outbound_deliveries"."payload" IS NOT NULL AND "outbound_deliveries"."message_id" IS NOT NULL) OR ("outbound_deliveries"."channel" = 'logout_token' AND "outbound_deliveries"."client_id" IS NOT NULL AND "outbound_deliveries"."payload" IS NOT NULL AND "outbound_deliveries"."message_id" IS NOT NULL) OR ("outbound_deliveries"."channel" IN ('security_event', 'security_event_poll') AND "outbound_deliveries"."stream_id" IS NOT NULL AND "outbound_deliveries"."payload" IS NOT NULL AND "outbound_deliveries"."message_id" IS NOT NULL) OR ("outbound_deliveries"."channel" = 'upstream_revocation' AND "outbound_deliveries"."payload" IS NOT NULL));--> statement-breakpoint
ALTER TABLE "gateway_servers" ADD CONSTRAINT "gateway_servers_credential_check" CHECK (("gateway_servers"."credential_kind" = 'none' AND "gateway_servers"."credential_sealed" IS NULL AND "gateway_servers"."credential_header" IS NULL) OR ("gateway_servers"."credential_kind" = 'header' AND "gateway_servers"."credential_sealed" IS NOT NULL AND "gateway_servers"."credential_header" IS NOT NULL) OR ("gateway_servers"."credential_kind" = 'oauth' AND "gateway_servers"."credential_sealed" IS NULL AND "gateway_servers"."credential_header" IS NULL));--> statement-breakpoint
-- A gateway server and its tools are read on every call through it (lib/gateway/resource.ts): kept by the read
-- cache, dropped on any change (the triggers of 0026's kind).
CREATE TRIGGER gateway_servers_cache_notify AFTER INSERT OR UPDATE OR DELETE ON gateway_servers FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('gateway', 'id');
--> statement-breakpoint
CREATE TRIGGER gateway_tools_cache_notify AFTER INSERT OR UPDATE OR DELETE ON gateway_tools FOR EACH ROW EXECUTE FUNCTION portico_cache_notify('gateway', 'server_id');
--> statement-breakpoint
CREATE TRIGGER gateway_servers_cache_truncate AFTER TRUNCATE ON gateway_servers FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
--> statement-breakpoint
CREATE TRIGGER gateway_tools_cache_truncate AFTER TRUNCATE ON gateway_tools FOR EACH STATEMENT EXECUTE FUNCTION portico_cache_notify_all();
