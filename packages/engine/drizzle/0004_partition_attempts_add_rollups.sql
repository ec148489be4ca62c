CREATE TABLE "attempt_latency_rollups" (
	"grain" text NOT NULL,
	"bucket_start" timestamp with time zone NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"buckets" smallint[] NOT NULL,
	"counts" bigint[] NOT NULL,
	CONSTRAINT "attempt_latency_rollups_pkey" PRIMARY KEY("grain","bucket_start","agent","step"),
	CONSTRAINT "attempt_latency_rollups_grain_known" CHECK ("attempt_latency_rollups"."grain" in ('hour', 'day')),
	CONSTRAINT "attempt_latency_rollups_arrays_match" CHECK (cardinality("attempt_latency_rollups"."buckets") = cardinality("attempt_latency_rollups"."counts"))
);
--> statement-breakpoint
CREATE TABLE "attempt_rollups" (
	"grain" text NOT NULL,
	"bucket_start" timestamp with time zone NOT NULL,
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
	CONSTRAINT "attempt_rollups_bucket_key" UNIQUE NULLS NOT DISTINCT("grain","bucket_start","agent","step","error_class"),
	CONSTRAINT "attempt_rollups_grain_known" CHECK ("attempt_rollups"."grain" in ('hour', 'day'))
);
--> statement-breakpoint
CREATE TABLE "rollup_state" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"rolled_to" timestamp with time zone,
	"processed_xid" "xid8" DEFAULT '0'::xid8 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_state_single_row" CHECK ("rollup_state"."id" = 1)
);
--> statement-breakpoint
-- The attempt log becomes a table partitioned by day on started_at, so that
-- retention drops whole days. Rows outside every daily partition land in the
-- default partition; lib/db/attempt-partitions.ts creates the daily partitions
-- ahead of time and moves any such rows when it creates their day.
ALTER TABLE "attempts" RENAME TO "attempts_unpartitioned";--> statement-breakpoint
-- Its indexes are about to be rebuilt under the same names on the new table.
ALTER TABLE "attempts_unpartitioned" DROP CONSTRAINT "attempts_pkey";--> statement-breakpoint
ALTER TABLE "attempts_unpartitioned" DROP CONSTRAINT "attempts_task_id_step_attempt_number_key";--> statement-breakpoint
DROP INDEX "attempts_started_at_idx";--> statement-breakpoint
DROP INDEX "attempts_agent_step_started_at_idx";--> statement-breakpoint
ALTER SEQUENCE "attempts_id_seq" OWNED BY NONE;--> statement-breakpoint
CREATE TABLE "attempts" (
	"id" bigint DEFAULT nextval('attempts_id_seq') NOT NULL,
	"task_id" text NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"attempt_number" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"latency_ms" integer,
	"outcome" text NOT NULL,
	"error_class" "error_class",
	"error_text" text,
	"cost_micros" bigint DEFAULT 0 NOT NULL,
	"idempotency_key" text,
	"run_key" text,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	CONSTRAINT "attempts_pkey" PRIMARY KEY("task_id","step","attempt_number","started_at"),
	CONSTRAINT "attempts_attempt_number_positive" CHECK ("attempts"."attempt_number" >= 1),
	CONSTRAINT "attempts_outcome_known" CHECK ("attempts"."outcome" in ('running', 'succeeded', 'failed')),
	CONSTRAINT "attempts_finished_after_started" CHECK ("attempts"."finished_at" >= "attempts"."started_at"),
	CONSTRAINT "attempts_finished_unless_running" CHECK (("attempts"."outcome" = 'running') = ("attempts"."finished_at" is null and "attempts"."latency_ms" is null)),
	CONSTRAINT "attempts_latency_not_negative" CHECK ("attempts"."latency_ms" >= 0),
	CONSTRAINT "attempts_cost_not_negative" CHECK ("attempts"."cost_micros" >= 0),
	CONSTRAINT "attempts_failure_is_explained" CHECK (("attempts"."outcome" in ('running', 'succeeded') and "attempts"."error_class" is null)
        or ("attempts"."outcome" = 'failed' and "attempts"."error_class" is not null
            and "attempts"."error_text" is not null and btrim("attempts"."error_text") <> ''))
) PARTITION BY RANGE ("started_at");--> statement-breakpoint
ALTER SEQUENCE "attempts_id_seq" OWNED BY "attempts"."id";--> statement-breakpoint
CREATE TABLE "attempts_default" PARTITION OF "attempts" DEFAULT;--> statement-breakpoint
INSERT INTO "attempts" ("id", "task_id", "agent", "step", "attempt_number", "started_at", "finished_at", "latency_ms", "outcome",
	"error_class", "error_text", "cost_micros", "idempotency_key", "run_key", "recorded_at")
	SELECT "id", "task_id", "agent", "step", "attempt_number", "started_at", "finished_at", "latency_ms", "outcome",
	"error_class", "error_text", "cost_micros", "idempotency_key", "run_key", "recorded_at" FROM "attempts_unpartitioned";--> statement-breakpoint
DROP TABLE "attempts_unpartitioned";--> statement-breakpoint
CREATE INDEX "attempts_agent_step_started_at_idx" ON "attempts" USING btree ("agent","step","started_at");--> statement-breakpoint
-- Any update (a running attempt finishing) marks the row as changed by its
-- transaction, so the rollup sweep re-rolls its hour.
CREATE FUNCTION "attempts_mark_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.changed_xid := pg_current_xact_id();
	RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "attempts_mark_changed" BEFORE UPDATE ON "attempts"
	FOR EACH ROW EXECUTE FUNCTION "attempts_mark_changed"();--> statement-breakpoint
INSERT INTO "rollup_state" ("id") VALUES (1);--> statement-breakpoint
CREATE INDEX "attempt_rollups_agent_step_idx" ON "attempt_rollups" USING btree ("agent","step","grain","bucket_start");--> statement-breakpoint
CREATE INDEX "attempts_changed_xid_idx" ON "attempts" USING btree ("changed_xid");--> statement-breakpoint
CREATE INDEX "attempts_started_at_idx" ON "attempts" USING brin ("started_at");