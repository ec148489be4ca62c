-- The fleet's sums per hour and day, with no step dimension, for the Overview's chart.
CREATE TABLE "all_steps_rollups" (
	"grain" text NOT NULL,
	"bucket_start" timestamp with time zone NOT NULL,
	"attempts" bigint NOT NULL,
	"retries" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	"retry_cost_micros" bigint NOT NULL,
	CONSTRAINT "all_steps_rollups_pkey" PRIMARY KEY("grain","bucket_start"),
	CONSTRAINT "all_steps_rollups_grain_known" CHECK ("all_steps_rollups"."grain" in ('hour', 'day'))
);
--> statement-breakpoint
-- The rollups already kept, summed once; the rollup pass keeps both from here on.
INSERT INTO "all_steps_rollups" ("grain", "bucket_start", "attempts", "retries", "cost_micros", "retry_cost_micros")
SELECT "grain", "bucket_start", sum("attempts"), sum("retries"), sum("cost_micros"), sum("retry_cost_micros")
FROM "attempt_rollups"
GROUP BY "grain", "bucket_start";
