CREATE TABLE "agent_runs" (
	"trace_id" text NOT NULL,
	"span_id" text NOT NULL,
	"agent" text NOT NULL,
	"name" text NOT NULL,
	"convention" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"error_text" text,
	CONSTRAINT "agent_runs_pkey" PRIMARY KEY("trace_id","span_id"),
	CONSTRAINT "agent_runs_outcome_known" CHECK ("agent_runs"."outcome" in ('succeeded', 'failed')),
	CONSTRAINT "agent_runs_finished_after_started" CHECK ("agent_runs"."finished_at" >= "agent_runs"."started_at")
);
--> statement-breakpoint
CREATE TABLE "span_ingest_hours" (
	"hour" timestamp with time zone NOT NULL,
	"service" text NOT NULL,
	"outcome" text NOT NULL,
	"spans" bigint NOT NULL,
	"sample" jsonb,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "span_ingest_hours_pkey" PRIMARY KEY("hour","service","outcome"),
	CONSTRAINT "span_ingest_hours_outcome_known" CHECK ("span_ingest_hours"."outcome" in ('call', 'http_try', 'run', 'run_part', 'rejected', 'ignored_operation', 'ignored_unrecognised', 'other'))
);
--> statement-breakpoint
CREATE TABLE "span_ingest_totals" (
	"service" text NOT NULL,
	"outcome" text NOT NULL,
	"spans" bigint NOT NULL,
	CONSTRAINT "span_ingest_totals_pkey" PRIMARY KEY("service","outcome"),
	CONSTRAINT "span_ingest_totals_outcome_known" CHECK ("span_ingest_totals"."outcome" in ('call', 'http_try', 'run', 'run_part', 'rejected', 'ignored_operation', 'ignored_unrecognised', 'other'))
);
--> statement-breakpoint
CREATE INDEX "agent_runs_started_at_idx" ON "agent_runs" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "agent_runs_agent_started_at_idx" ON "agent_runs" USING btree ("agent","started_at");