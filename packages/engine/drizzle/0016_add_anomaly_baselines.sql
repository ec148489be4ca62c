-- The anomaly rule's 7 baseline days per step, kept by the rollup pass. Until the first pass after
-- this migration fills it (baseline_end is null), the rule sums hourly rollups as before.
CREATE TABLE "anomaly_baselines" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"day" smallint NOT NULL,
	"attempts" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	"retry_cost_micros" bigint NOT NULL,
	CONSTRAINT "anomaly_baselines_pkey" PRIMARY KEY("agent","step","day"),
	CONSTRAINT "anomaly_baselines_day_known" CHECK ("anomaly_baselines"."day" between 0 and 6)
);
--> statement-breakpoint
ALTER TABLE "rollup_state" ADD COLUMN "baseline_end" timestamp with time zone;
