-- Sums of the rollups over the named windows' whole-hour spans, kept by the rollup pass. Until the
-- first pass after this migration fills them, windows are summed from hourly and daily rollups as before.
CREATE TABLE "rollup_spans" (
	"span_from" timestamp with time zone NOT NULL,
	"span_to" timestamp with time zone NOT NULL,
	CONSTRAINT "rollup_spans_pkey" PRIMARY KEY("span_from","span_to")
);
--> statement-breakpoint
CREATE TABLE "span_latency_rollups" (
	"span_from" timestamp with time zone NOT NULL,
	"span_to" timestamp with time zone NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"buckets" smallint[] NOT NULL,
	"counts" bigint[] NOT NULL,
	CONSTRAINT "span_latency_rollups_pkey" PRIMARY KEY("span_from","span_to","agent","step"),
	CONSTRAINT "span_latency_rollups_arrays_match" CHECK (cardinality("span_latency_rollups"."buckets") = cardinality("span_latency_rollups"."counts"))
);
--> statement-breakpoint
CREATE TABLE "span_rollups" (
	"span_from" timestamp with time zone NOT NULL,
	"span_to" timestamp with time zone NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"error_class" "error_class",
	"attempts" bigint NOT NULL,
	"retries" bigint NOT NULL,
	"failures" bigint NOT NULL,
	"executions" bigint NOT NULL,
	"first_try_successes" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	"retry_cost_micros" bigint NOT NULL,
	CONSTRAINT "span_rollups_span_key" UNIQUE NULLS NOT DISTINCT("span_from","span_to","agent","step","error_class")
);
