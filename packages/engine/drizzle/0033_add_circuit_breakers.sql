-- Circuit breakers: per step and per downstream, state shared by every instance; attempts and failures per
-- 5-second slice; every state change kept; one settings row for admins. A key keeps the downstream its begin named.
-- A new alert kind, circuit_open, on by default.
CREATE TABLE "breaker_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"target" text NOT NULL,
	"event" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"failure_share" double precision,
	"volume" integer,
	CONSTRAINT "breaker_events_event_known" CHECK ("breaker_events"."event" in ('opened', 'probing', 'closed', 'reopened'))
);
--> statement-breakpoint
CREATE TABLE "breaker_settings" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"window_seconds" integer NOT NULL,
	"failure_share" double precision NOT NULL,
	"minimum_volume" integer NOT NULL,
	"cool_down_seconds" integer NOT NULL,
	"probes" integer NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "breaker_settings_one_row" CHECK ("breaker_settings"."id" = 1),
	CONSTRAINT "breaker_settings_window_range" CHECK ("breaker_settings"."window_seconds" between 10 and 3600),
	CONSTRAINT "breaker_settings_share_range" CHECK ("breaker_settings"."failure_share" > 0 and "breaker_settings"."failure_share" <= 1),
	CONSTRAINT "breaker_settings_volume_range" CHECK ("breaker_settings"."minimum_volume" between 1 and 1000000),
	CONSTRAINT "breaker_settings_cool_down_range" CHECK ("breaker_settings"."cool_down_seconds" between 1 and 3600),
	CONSTRAINT "breaker_settings_probes_range" CHECK ("breaker_settings"."probes" between 1 and 100)
);
--> statement-breakpoint
CREATE TABLE "breaker_slices" (
	"target" text NOT NULL,
	"slice_start" timestamp with time zone NOT NULL,
	"attempts" integer NOT NULL,
	"failures" integer NOT NULL,
	CONSTRAINT "breaker_slices_pkey" PRIMARY KEY("target","slice_start")
);
--> statement-breakpoint
CREATE TABLE "circuit_breakers" (
	"target" text PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"agent" text,
	"step" text,
	"downstream" text,
	"state" text NOT NULL,
	"opened_at" timestamp with time zone,
	"probe_at" timestamp with time zone,
	"probes_granted" integer DEFAULT 0 NOT NULL,
	"failure_share" double precision,
	"volume" integer,
	"changed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "circuit_breakers_scope_known" CHECK ("circuit_breakers"."scope" in ('step', 'downstream')),
	CONSTRAINT "circuit_breakers_state_known" CHECK ("circuit_breakers"."state" in ('closed', 'open', 'half_open')),
	CONSTRAINT "circuit_breakers_probe_when_not_closed" CHECK ("circuit_breakers"."state" = 'closed' or "circuit_breakers"."probe_at" is not null)
);
--> statement-breakpoint
ALTER TABLE "alert_rules" DROP CONSTRAINT "alert_rules_kind_known";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "downstream" text;--> statement-breakpoint
CREATE INDEX "breaker_events_by_target" ON "breaker_events" USING btree ("target","at");--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_kind_known" CHECK ("alert_rules"."kind" in ('retry_share_anomaly', 'hold_opened', 'dead_letters_waiting', 'stale_lock', 'uncertain_key', 'budget_refusals', 'sweep_failing', 'circuit_open'));--> statement-breakpoint
INSERT INTO "alert_rules" ("kind", "thresholds") VALUES ('circuit_open', '{}'::jsonb) ON CONFLICT DO NOTHING;
