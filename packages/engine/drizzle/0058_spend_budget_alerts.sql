ALTER TABLE "alert_rules" DROP CONSTRAINT "alert_rules_kind_known";--> statement-breakpoint
ALTER TABLE "alert_silences" DROP CONSTRAINT "alert_silences_kind_known";--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_kind_known" CHECK ("alert_rules"."kind" in ('retry_share_anomaly', 'hold_opened', 'dead_letters_waiting', 'stale_lock', 'uncertain_key', 'budget_refusals', 'sweep_failing', 'circuit_open', 'spend_budget'));--> statement-breakpoint
ALTER TABLE "alert_silences" ADD CONSTRAINT "alert_silences_kind_known" CHECK ("alert_silences"."kind" is null or "alert_silences"."kind" in ('retry_share_anomaly', 'hold_opened', 'dead_letters_waiting', 'stale_lock', 'uncertain_key', 'budget_refusals', 'sweep_failing', 'circuit_open', 'spend_budget'));--> statement-breakpoint
-- A new alert kind, spend_budget, on by default (its thresholds are each budget's own).
INSERT INTO "alert_rules" ("kind", "thresholds") VALUES ('spend_budget', '{}'::jsonb) ON CONFLICT DO NOTHING;
