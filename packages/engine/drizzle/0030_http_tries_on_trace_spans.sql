-- HTTP client spans kept as tries of their parent model call (kind http_try: no task, agent or step of their own;
-- the sender's agent limits kept to match them only to calls of agents it may act for). Spans stored before are
-- calls (kind 'call') not marked as model calls: tries that come for them later are kept and stay unused.
ALTER TABLE "trace_spans" ALTER COLUMN "task_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "trace_spans" ALTER COLUMN "agent" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "trace_spans" ALTER COLUMN "step" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "trace_spans" ADD COLUMN "kind" text DEFAULT 'call' NOT NULL;--> statement-breakpoint
ALTER TABLE "trace_spans" ADD COLUMN "parent_span_id" text;--> statement-breakpoint
ALTER TABLE "trace_spans" ADD COLUMN "model_call" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "trace_spans" ADD COLUMN "http_status" integer;--> statement-breakpoint
ALTER TABLE "trace_spans" ADD COLUMN "resend_count" integer;--> statement-breakpoint
ALTER TABLE "trace_spans" ADD COLUMN "sender_agents" text[];--> statement-breakpoint
CREATE INDEX "trace_spans_trace_id_parent_span_id_idx" ON "trace_spans" USING btree ("trace_id","parent_span_id") WHERE "trace_spans"."kind" = 'http_try';--> statement-breakpoint
ALTER TABLE "trace_spans" ADD CONSTRAINT "trace_spans_kind_known" CHECK ("trace_spans"."kind" in ('call', 'http_try'));--> statement-breakpoint
ALTER TABLE "trace_spans" ADD CONSTRAINT "trace_spans_kind_named" CHECK (("trace_spans"."kind" = 'call' and "trace_spans"."task_id" is not null and "trace_spans"."agent" is not null and "trace_spans"."step" is not null)
        or ("trace_spans"."kind" = 'http_try' and "trace_spans"."parent_span_id" is not null));