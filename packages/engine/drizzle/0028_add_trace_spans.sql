CREATE TABLE "trace_spans" (
	"trace_id" text NOT NULL,
	"span_id" text NOT NULL,
	"task_id" text NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone NOT NULL,
	"stated_attempt" integer,
	"outcome" text NOT NULL,
	"error_class" "error_class",
	"error_text" text,
	"cost_micros" bigint NOT NULL,
	"cost_source" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trace_spans_pkey" PRIMARY KEY("trace_id","span_id"),
	CONSTRAINT "trace_spans_outcome_known" CHECK ("trace_spans"."outcome" in ('succeeded', 'failed')),
	CONSTRAINT "trace_spans_cost_source_known" CHECK ("trace_spans"."cost_source" in ('reported', 'priced', 'rule', 'none'))
);
--> statement-breakpoint
ALTER TABLE "api_tokens" DROP CONSTRAINT "api_tokens_scopes_known";--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "cost_source" text;--> statement-breakpoint
CREATE INDEX "trace_spans_task_id_step_idx" ON "trace_spans" USING btree ("task_id","step");--> statement-breakpoint
CREATE INDEX "trace_spans_started_at_idx" ON "trace_spans" USING btree ("started_at");--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_scopes_known" CHECK ("api_tokens"."scopes" <@ array['ingest', 'read', 'metrics', 'traces']::text[] and cardinality("api_tokens"."scopes") > 0);