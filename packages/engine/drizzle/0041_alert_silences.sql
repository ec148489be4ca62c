-- Silences by rule and subject for a time, with a reason; alert repeats counted on the open instance (fire_count, last_seen_at, cleared_at).
CREATE TABLE "alert_silences" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text,
	"identity_pattern" text,
	"team" text,
	"reason" text NOT NULL,
	"created_by" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"ended_by" text,
	CONSTRAINT "alert_silences_kind_known" CHECK ("alert_silences"."kind" is null or "alert_silences"."kind" in ('retry_share_anomaly', 'hold_opened', 'dead_letters_waiting', 'stale_lock', 'uncertain_key', 'budget_refusals', 'sweep_failing', 'circuit_open')),
	CONSTRAINT "alert_silences_ends_after_start" CHECK ("alert_silences"."ends_at" > "alert_silences"."starts_at")
);
--> statement-breakpoint
ALTER TABLE "alert_instances" ADD COLUMN "fire_count" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_instances" ADD COLUMN "last_seen_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_instances" ADD COLUMN "cleared_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alert_instances" ADD COLUMN "silenced_by" bigint;--> statement-breakpoint
ALTER TABLE "alert_instances" ADD COLUMN "notification_held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "alert_silences_ends_at_idx" ON "alert_silences" USING btree ("ends_at") WHERE "alert_silences"."ended_at" is null;--> statement-breakpoint
ALTER TABLE "alert_instances" ADD CONSTRAINT "alert_instances_silenced_by_alert_silences_id_fk" FOREIGN KEY ("silenced_by") REFERENCES "public"."alert_silences"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Alerts from before: last seen when they resolved, or now if they still fire.
UPDATE "alert_instances" SET "last_seen_at" = "resolved_at" WHERE "resolved_at" IS NOT NULL;
