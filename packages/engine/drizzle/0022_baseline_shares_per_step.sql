-- The anomaly rule's stored baseline becomes one row per step holding its daily retry shares (the rule's whole
-- input) instead of seven rows of sums per step. Its rows are derived: the table is rebuilt empty and the
-- baseline marked missing, so readers sum the hourly rollups until the next rollup pass stores it again.
DROP TABLE "anomaly_baselines";--> statement-breakpoint
CREATE TABLE "anomaly_baselines" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"shares" double precision[] NOT NULL,
	CONSTRAINT "anomaly_baselines_pkey" PRIMARY KEY("agent","step")
);--> statement-breakpoint
UPDATE "rollup_state" SET "baseline_end" = NULL;
