CREATE TABLE "attempt_totals" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"retries" bigint DEFAULT 0 NOT NULL,
	"cost_micros" bigint DEFAULT 0 NOT NULL,
	"retry_cost_micros" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "attempt_totals_pkey" PRIMARY KEY("agent","step")
);
--> statement-breakpoint
CREATE TABLE "budget_refusal_minutes" (
	"minute" timestamp with time zone NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"reason" text NOT NULL,
	"refusals" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "budget_refusal_minutes_pkey" PRIMARY KEY("minute","agent","step","reason")
);
--> statement-breakpoint
CREATE TABLE "budget_refusal_totals" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"reason" text NOT NULL,
	"refusals" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "budget_refusal_totals_pkey" PRIMARY KEY("agent","step","reason")
);
--> statement-breakpoint
CREATE TABLE "failure_totals" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"error_class" "error_class" NOT NULL,
	"failures" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "failure_totals_pkey" PRIMARY KEY("agent","step","error_class")
);
--> statement-breakpoint
CREATE TABLE "alert_channels" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"url" text NOT NULL,
	"url_hint" text NOT NULL,
	"signing_secret" text,
	"team" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"failing_since" timestamp with time zone,
	"failing_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "alert_channels_kind_known" CHECK ("alert_channels"."kind" in ('webhook', 'slack')),
	CONSTRAINT "alert_channels_webhook_signed" CHECK ("alert_channels"."kind" <> 'webhook' or "alert_channels"."signing_secret" is not null)
);
--> statement-breakpoint
CREATE TABLE "alert_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"instance_id" bigint,
	"event" text NOT NULL,
	"channel_id" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "alert_deliveries_event_id_key" UNIQUE("event_id"),
	CONSTRAINT "alert_deliveries_once_key" UNIQUE("instance_id","event","channel_id"),
	CONSTRAINT "alert_deliveries_event_known" CHECK ("alert_deliveries"."event" in ('fired', 'resolved', 'test')),
	CONSTRAINT "alert_deliveries_status_known" CHECK ("alert_deliveries"."status" in ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "alert_delivery_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" bigint NOT NULL,
	"attempted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status_code" integer,
	"error" text,
	"duration_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_instances" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"identity" text NOT NULL,
	"title" text NOT NULL,
	"detail" text NOT NULL,
	"link" text NOT NULL,
	"team" text,
	"status" text DEFAULT 'firing' NOT NULL,
	"fired_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "alert_instances_status_known" CHECK ("alert_instances"."status" in ('firing', 'resolved'))
);
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"kind" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"thresholds" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text DEFAULT 'system:migration' NOT NULL,
	CONSTRAINT "alert_rules_kind_known" CHECK ("alert_rules"."kind" in ('retry_share_anomaly', 'hold_opened', 'dead_letters_waiting', 'stale_lock', 'uncertain_key', 'budget_refusals', 'sweep_failing'))
);
--> statement-breakpoint
ALTER TABLE "api_tokens" DROP CONSTRAINT "api_tokens_scopes_known";--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_instance_id_alert_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."alert_instances"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_channel_id_alert_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."alert_channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_delivery_attempts" ADD CONSTRAINT "alert_delivery_attempts_delivery_id_alert_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."alert_deliveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alert_channels_live_name_key" ON "alert_channels" USING btree ("name") WHERE "alert_channels"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "alert_deliveries_due_idx" ON "alert_deliveries" USING btree ("next_attempt_at") WHERE "alert_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "alert_delivery_attempts_delivery_idx" ON "alert_delivery_attempts" USING btree ("delivery_id");--> statement-breakpoint
CREATE UNIQUE INDEX "alert_instances_one_firing_key" ON "alert_instances" USING btree ("kind","identity") WHERE "alert_instances"."status" = 'firing';--> statement-breakpoint
CREATE INDEX "alert_instances_fired_idx" ON "alert_instances" USING btree ("fired_at");--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_scopes_known" CHECK ("api_tokens"."scopes" <@ array['ingest', 'read', 'metrics']::text[] and cardinality("api_tokens"."scopes") > 0);
--> statement-breakpoint
-- The counters start from what the rollups already hold; the rollup pass adds to them from here on.
INSERT INTO "attempt_totals" ("agent", "step", "attempts", "retries", "cost_micros", "retry_cost_micros")
  SELECT "agent", "step", sum("attempts"), sum("retries"), sum("cost_micros"), sum("retry_cost_micros")
  FROM "attempt_rollups" WHERE "grain" = 'hour' GROUP BY "agent", "step";--> statement-breakpoint
INSERT INTO "failure_totals" ("agent", "step", "error_class", "failures")
  SELECT "agent", "step", "error_class", sum("failures")
  FROM "attempt_rollups" WHERE "grain" = 'hour' AND "error_class" IS NOT NULL
  GROUP BY "agent", "step", "error_class" HAVING sum("failures") > 0;--> statement-breakpoint
-- One rule per kind, on by default with thresholds an on-call team can start from (see README, Alerts and metrics).
INSERT INTO "alert_rules" ("kind", "thresholds") VALUES
  ('retry_share_anomaly', '{}'::jsonb),
  ('hold_opened', '{}'::jsonb),
  ('dead_letters_waiting', '{"maxWaiting": 50, "maxAgeMinutes": 60}'::jsonb),
  ('stale_lock', '{"unreleasableMinutes": 30}'::jsonb),
  ('uncertain_key', '{}'::jsonb),
  ('budget_refusals', '{"perMinute": 10}'::jsonb),
  ('sweep_failing', '{"staleMinutes": 15}'::jsonb);
