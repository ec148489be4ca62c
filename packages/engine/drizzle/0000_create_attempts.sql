CREATE TYPE "public"."attempt_outcome" AS ENUM('succeeded', 'failed');--> statement-breakpoint
CREATE TYPE "public"."error_class" AS ENUM('transient', 'timeout', 'rate_limited', 'invalid_output', 'permanent', 'unknown');--> statement-breakpoint
CREATE TABLE "attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"attempt_number" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone NOT NULL,
	"latency_ms" integer NOT NULL,
	"outcome" "attempt_outcome" NOT NULL,
	"error_class" "error_class",
	"error_text" text,
	"cost_micros" bigint DEFAULT 0 NOT NULL,
	"idempotency_key" text,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attempts_task_id_step_attempt_number_key" UNIQUE("task_id","step","attempt_number"),
	CONSTRAINT "attempts_attempt_number_positive" CHECK ("attempts"."attempt_number" >= 1),
	CONSTRAINT "attempts_finished_after_started" CHECK ("attempts"."finished_at" >= "attempts"."started_at"),
	CONSTRAINT "attempts_latency_not_negative" CHECK ("attempts"."latency_ms" >= 0),
	CONSTRAINT "attempts_cost_not_negative" CHECK ("attempts"."cost_micros" >= 0),
	CONSTRAINT "attempts_failure_is_explained" CHECK (("attempts"."outcome" = 'succeeded' and "attempts"."error_class" is null)
        or ("attempts"."outcome" = 'failed' and "attempts"."error_class" is not null
            and "attempts"."error_text" is not null and btrim("attempts"."error_text") <> ''))
);
--> statement-breakpoint
CREATE INDEX "attempts_started_at_idx" ON "attempts" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "attempts_agent_step_started_at_idx" ON "attempts" USING btree ("agent","step","started_at");