-- Per-step sums of the named windows' five-minute-aligned parts, written by every rollup pass. Until the
-- first pass after this migration fills them, readers plan their windows from the rollups as before.
CREATE TABLE "window_sum_ranges" (
	"sums_from" timestamp with time zone NOT NULL,
	"sums_to" timestamp with time zone NOT NULL,
	"stored_at" timestamp with time zone NOT NULL,
	CONSTRAINT "window_sum_ranges_pkey" PRIMARY KEY("sums_from","sums_to")
);
--> statement-breakpoint
CREATE TABLE "window_sums" (
	"sums_from" timestamp with time zone NOT NULL,
	"sums_to" timestamp with time zone NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"attempts" bigint NOT NULL,
	"retries" bigint NOT NULL,
	"failures" bigint NOT NULL,
	"executions" bigint NOT NULL,
	"first_try_successes" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	"retry_cost_micros" bigint NOT NULL,
	CONSTRAINT "window_sums_pkey" PRIMARY KEY("sums_from","sums_to","agent","step")
);
