CREATE TABLE "ssf_streams" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"app_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"delivery_method" text NOT NULL,
	"sealed_endpoint_url" text,
	"display_endpoint_url" text,
	"sealed_authorization_header" text,
	"events_requested" text[] NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'enabled' NOT NULL,
	"status_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ssf_streams_push_url" CHECK (("ssf_streams"."delivery_method" = 'push') = ("ssf_streams"."sealed_endpoint_url" IS NOT NULL))
);
--> statement-breakpoint
ALTER TABLE "outbound_deliveries" DROP CONSTRAINT "outbound_deliveries_shape";--> statement-breakpoint
ALTER TABLE "outbound_deliveries" ADD COLUMN "stream_id" text;--> statement-breakpoint
ALTER TABLE "ssf_streams" ADD CONSTRAINT "ssf_streams_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ssf_streams" ADD CONSTRAINT "ssf_streams_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ssf_streams" ADD CONSTRAINT "ssf_streams_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ssf_streams_client_idx" ON "ssf_streams" USING btree ("client_id");--> statement-breakpoint
ALTER TABLE "outbound_deliveries" ADD CONSTRAINT "outbound_deliveries_stream_id_ssf_streams_id_fk" FOREIGN KEY ("stream_id") REFERENCES "public"."ssf_streams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbound_deliveries_stream_idx" ON "outbound_deliveries" USING btree ("stream_id","created_at") WHERE "outbound_deliveries"."stream_id" IS NOT NULL AND "outbound_deliveries"."delivered_at" IS NULL;--> statement-breakpoint
ALTER TABLE "outbound_deliveries" ADD CONSTRAINT "outbound_deliveries_shape" CHECK (("outbound_deliveries"."channel" = 'mail' AND "outbound_deliveries"."sealed_payload" IS NOT NULL) OR ("outbound_deliveries"."channel" = 'webhook' AND "outbound_deliveries"."endpoint_id" IS NOT NULL AND "outbound_deliveries"."payload" IS NOT NULL AND "outbound_deliveries"."message_id" IS NOT NULL) OR ("outbound_deliveries"."channel" = 'logout_token' AND "outbound_deliveries"."client_id" IS NOT NULL AND "outbound_deliveries"."payload" IS NOT NULL AND "outbound_deliveries"."message_id" IS NOT NULL) OR ("outbound_deliveries"."channel" IN ('security_event', 'security_event_poll') AND "outbound_deliveries"."stream_id" IS NOT NULL AND "outbound_deliveries"."payload" IS NOT NULL AND "outbound_deliveries"."message_id" IS NOT NULL));