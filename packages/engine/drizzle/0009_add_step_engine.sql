CREATE TABLE "retry_pool_usage" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"slice_start" timestamp with time zone NOT NULL,
	"first_attempts" integer DEFAULT 0 NOT NULL,
	"retries" integer DEFAULT 0 NOT NULL,
	"refusals" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "retry_pool_usage_pkey" PRIMARY KEY("agent","step","slice_start")
);
--> statement-breakpoint
CREATE TABLE "retry_pools" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent" text NOT NULL,
	"step" text DEFAULT '*' NOT NULL,
	"budget_percent" double precision NOT NULL,
	"min_retries_per_second" double precision NOT NULL,
	"window_seconds" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL,
	CONSTRAINT "retry_pools_agent_step_key" UNIQUE("agent","step"),
	CONSTRAINT "retry_pools_budget_percent_range" CHECK ("retry_pools"."budget_percent" between 0 and 1000),
	CONSTRAINT "retry_pools_floor_range" CHECK ("retry_pools"."min_retries_per_second" between 0 and 1000),
	CONSTRAINT "retry_pools_window_range" CHECK ("retry_pools"."window_seconds" between 10 and 86400)
);
--> statement-breakpoint
ALTER TABLE "holds" DROP CONSTRAINT "holds_reason_known";--> statement-breakpoint
ALTER TABLE "task_budgets" DROP CONSTRAINT "task_budgets_status_known";--> statement-breakpoint
ALTER TABLE "task_budgets" DROP CONSTRAINT "task_budgets_spend_not_negative";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "retention_ms" bigint;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "agent" text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "queue" text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "payload" jsonb;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "reserved_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "completes_task" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "attempt_started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "finish_answer" jsonb;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "escalated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "slot_locks" ADD COLUMN "release_refused_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "slot_locks" ADD COLUMN "release_refused_guards" text[];--> statement-breakpoint
ALTER TABLE "slot_locks" ADD COLUMN "escalated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "task_budgets" ADD COLUMN "reserved_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "task_budgets" ADD COLUMN "finished_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "task_budgets" ADD COLUMN "redrives_used" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "task_budgets" ADD COLUMN "last_redrive_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "retry_pool_usage_agent_slice_start_idx" ON "retry_pool_usage" USING btree ("agent","slice_start");--> statement-breakpoint
ALTER TABLE "holds" ADD CONSTRAINT "holds_resolution_known" CHECK ("holds"."resolution" in ('resume', 'discard', 'resolved'));--> statement-breakpoint
ALTER TABLE "holds" ADD CONSTRAINT "holds_reason_known" CHECK ("holds"."reason" in ('retry_ceiling', 'budget_exhausted', 'permanent_error', 'payload_mismatch', 'uncertain_outcome', 'needs_approval', 'needs_secret', 'policy_blocked', 'frozen', 'stale_lock', 'manual'));--> statement-breakpoint
ALTER TABLE "task_budgets" ADD CONSTRAINT "task_budgets_status_known" CHECK ("task_budgets"."status" in ('active', 'frozen', 'dead_lettered', 'completed', 'failed', 'discarded'));--> statement-breakpoint
ALTER TABLE "task_budgets" ADD CONSTRAINT "task_budgets_spend_not_negative" CHECK ("task_budgets"."spend_micros" >= 0 and "task_budgets"."spend_ceiling_micros" >= 0 and "task_budgets"."reserved_micros" >= 0);