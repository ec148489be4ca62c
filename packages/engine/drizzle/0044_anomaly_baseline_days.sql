-- The anomaly baseline's day sums, so the pass that closes an hour moves them by that hour instead of summing a week of hourly rows. Empty until the next pass stores them (baseline_days_end null).
CREATE TABLE "anomaly_baseline_days" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"day" smallint NOT NULL,
	"attempts" bigint NOT NULL,
	"cost_micros" numeric NOT NULL,
	"retry_cost_micros" numeric NOT NULL,
	CONSTRAINT "anomaly_baseline_days_pkey" PRIMARY KEY("agent","step","day"),
	CONSTRAINT "anomaly_baseline_days_day_known" CHECK ("anomaly_baseline_days"."day" between 0 and 6)
);
--> statement-breakpoint
ALTER TABLE "rollup_state" ADD COLUMN "baseline_days_end" timestamp with time zone;