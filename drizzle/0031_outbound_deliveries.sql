CREATE TABLE "outbound_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"channel" text NOT NULL,
	"org_id" uuid,
	"endpoint_id" uuid,
	"recipient" text NOT NULL,
	"message_id" text,
	"event_type" text,
	"payload" jsonb,
	"sealed_payload" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_status" integer,
	"delivered_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"redelivery_of" uuid,
	"audit_event_id" bigint,
	CONSTRAINT "outbound_deliveries_shape" CHECK (("outbound_deliveries"."channel" = 'mail' AND "outbound_deliveries"."sealed_payload" IS NOT NULL) OR ("outbound_deliveries"."channel" = 'webhook' AND "outbound_deliveries"."endpoint_id" IS NOT NULL AND "outbound_deliveries"."payload" IS NOT NULL AND "outbound_deliveries"."message_id" IS NOT NULL))
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"sealed_url" text NOT NULL,
	"display_url" text NOT NULL,
	"format" text DEFAULT 'standard' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"events" text[] NOT NULL,
	"sealed_secret" text NOT NULL,
	"sealed_previous_secret" text,
	"previous_secret_expires_at" timestamp with time zone,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_endpoints_previous_secret" CHECK (("webhook_endpoints"."sealed_previous_secret" IS NULL) = ("webhook_endpoints"."previous_secret_expires_at" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "outbound_deliveries" ADD CONSTRAINT "outbound_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbound_deliveries_due_idx" ON "outbound_deliveries" USING btree ("next_attempt_at") WHERE "outbound_deliveries"."delivered_at" IS NULL AND "outbound_deliveries"."failed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "outbound_deliveries_endpoint_idx" ON "outbound_deliveries" USING btree ("endpoint_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_org_idx" ON "webhook_endpoints" USING btree ("org_id");