CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"reason" text,
	"before" jsonb,
	"after" jsonb,
	CONSTRAINT "audit_log_actor_type_known" CHECK ("audit_log"."actor_type" in ('person', 'agent', 'system'))
);
--> statement-breakpoint
CREATE TABLE "dead_letters" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"queue" text NOT NULL,
	"payload" jsonb NOT NULL,
	"reason" text NOT NULL,
	"error_class" "error_class",
	"last_error" text,
	"attempts" integer NOT NULL,
	"spend_micros" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"redrive_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dead_letters_status_known" CHECK ("dead_letters"."status" in ('pending', 'redriven', 'discarded'))
);
--> statement-breakpoint
CREATE TABLE "redrives" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"outbox_key" text NOT NULL,
	"dead_letter_id" bigint NOT NULL,
	"queue" text NOT NULL,
	"payload" jsonb NOT NULL,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	"delivery_attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	CONSTRAINT "redrives_outbox_key_key" UNIQUE("outbox_key")
);
--> statement-breakpoint
CREATE TABLE "holds" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"item_type" text NOT NULL,
	"item_id" text NOT NULL,
	"reason" text NOT NULL,
	"detail" text NOT NULL,
	"owner" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"resolution" text,
	"resolution_note" text,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"opened_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cleared_at" timestamp with time zone,
	"cleared_by" text,
	CONSTRAINT "holds_item_type_known" CHECK ("holds"."item_type" in ('task', 'dead_letter', 'key', 'slot')),
	CONSTRAINT "holds_reason_known" CHECK ("holds"."reason" in ('retry_ceiling', 'budget_exhausted', 'permanent_error', 'payload_mismatch', 'uncertain_outcome', 'needs_approval', 'needs_secret', 'policy_blocked', 'frozen', 'manual')),
	CONSTRAINT "holds_detail_not_blank" CHECK (btrim("holds"."detail") <> ''),
	CONSTRAINT "holds_owner_named" CHECK ("holds"."owner" ~ '^(person|team):.+'),
	CONSTRAINT "holds_status_known" CHECK ("holds"."status" in ('open', 'cleared')),
	CONSTRAINT "holds_cleared_has_resolution" CHECK (("holds"."status" = 'cleared') = ("holds"."resolution" is not null and "holds"."cleared_at" is not null))
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"key" text PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"request_hash" text NOT NULL,
	"status" text NOT NULL,
	"fencing_token" bigint NOT NULL,
	"holder_claim" text NOT NULL,
	"holder" text,
	"downstream_idempotent" boolean NOT NULL,
	"task_id" text,
	"step" text,
	"acquisitions" integer DEFAULT 1 NOT NULL,
	"claim_calls" integer DEFAULT 1 NOT NULL,
	"result" jsonb,
	"error_class" "error_class",
	"error_text" text,
	"locked_until" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_status_known" CHECK ("idempotency_keys"."status" in ('in_progress', 'completed', 'failed')),
	CONSTRAINT "idempotency_keys_in_progress_has_expiry" CHECK (("idempotency_keys"."status" = 'in_progress') = ("idempotency_keys"."locked_until" is not null))
);
--> statement-breakpoint
CREATE TABLE "leases" (
	"job" text NOT NULL,
	"bucket" text NOT NULL,
	"holder" text NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "leases_pkey" PRIMARY KEY("job","bucket")
);
--> statement-breakpoint
CREATE TABLE "kill_switches" (
	"name" text PRIMARY KEY NOT NULL,
	"engaged" boolean NOT NULL,
	"reason" text,
	"changed_by" text,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"run_key" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"agent" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "runs_status_known" CHECK ("runs"."status" in ('running', 'finished', 'failed')),
	CONSTRAINT "runs_finished_when_not_running" CHECK (("runs"."status" = 'running') = ("runs"."finished_at" is null))
);
--> statement-breakpoint
CREATE TABLE "slot_evidence" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"slot" text NOT NULL,
	"run_key" text NOT NULL,
	"fencing_token" bigint NOT NULL,
	"ref" text NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "slot_evidence_slot_run_key_ref_key" UNIQUE("slot","run_key","ref")
);
--> statement-breakpoint
CREATE TABLE "slot_locks" (
	"slot" text PRIMARY KEY NOT NULL,
	"holder_run_key" text NOT NULL,
	"fencing_token" bigint NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"released_at" timestamp with time zone,
	"released_by" text
);
--> statement-breakpoint
CREATE TABLE "task_budgets" (
	"task_id" text PRIMARY KEY NOT NULL,
	"agent" text NOT NULL,
	"owner" text NOT NULL,
	"retry_allowance" integer NOT NULL,
	"retries_used" integer DEFAULT 0 NOT NULL,
	"spend_ceiling_micros" bigint NOT NULL,
	"spend_micros" bigint DEFAULT 0 NOT NULL,
	"time_allowance_ms" bigint NOT NULL,
	"deadline" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_budgets_status_known" CHECK ("task_budgets"."status" in ('active', 'frozen', 'dead_lettered', 'completed', 'discarded')),
	CONSTRAINT "task_budgets_retries_within_allowance" CHECK ("task_budgets"."retries_used" between 0 and "task_budgets"."retry_allowance"),
	CONSTRAINT "task_budgets_spend_not_negative" CHECK ("task_budgets"."spend_micros" >= 0 and "task_budgets"."spend_ceiling_micros" >= 0),
	CONSTRAINT "task_budgets_owner_named" CHECK ("task_budgets"."owner" ~ '^(person|team):.+')
);
--> statement-breakpoint
ALTER TABLE "attempts" DROP CONSTRAINT "attempts_failure_is_explained";--> statement-breakpoint
ALTER TABLE "attempts" ALTER COLUMN "finished_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "attempts" ALTER COLUMN "latency_ms" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "attempts" ALTER COLUMN "outcome" SET DATA TYPE text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "run_key" text;--> statement-breakpoint
ALTER TABLE "redrives" ADD CONSTRAINT "redrives_dead_letter_id_dead_letters_id_fk" FOREIGN KEY ("dead_letter_id") REFERENCES "public"."dead_letters"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_target_type_target_id_occurred_at_idx" ON "audit_log" USING btree ("target_type","target_id","occurred_at");--> statement-breakpoint
CREATE INDEX "audit_log_occurred_at_idx" ON "audit_log" USING btree ("occurred_at");--> statement-breakpoint
CREATE UNIQUE INDEX "dead_letters_pending_task_id_idx" ON "dead_letters" USING btree ("task_id") WHERE "dead_letters"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "dead_letters_status_created_at_idx" ON "dead_letters" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "redrives_undelivered_next_attempt_at_idx" ON "redrives" USING btree ("next_attempt_at") WHERE "redrives"."delivered_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "holds_open_item_idx" ON "holds" USING btree ("item_type","item_id") WHERE "holds"."status" = 'open';--> statement-breakpoint
CREATE INDEX "holds_open_owner_idx" ON "holds" USING btree ("owner","opened_at") WHERE "holds"."status" = 'open';--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "idempotency_keys_in_progress_locked_until_idx" ON "idempotency_keys" USING btree ("locked_until") WHERE "idempotency_keys"."status" = 'in_progress';--> statement-breakpoint
CREATE INDEX "runs_task_id_idx" ON "runs" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "slot_locks_held_expires_at_idx" ON "slot_locks" USING btree ("expires_at") WHERE "slot_locks"."released_at" is null;--> statement-breakpoint
CREATE INDEX "task_budgets_active_updated_at_idx" ON "task_budgets" USING btree ("updated_at") WHERE "task_budgets"."status" = 'active';--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_outcome_known" CHECK ("attempts"."outcome" in ('running', 'succeeded', 'failed'));--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_finished_unless_running" CHECK (("attempts"."outcome" = 'running') = ("attempts"."finished_at" is null and "attempts"."latency_ms" is null));--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_failure_is_explained" CHECK (("attempts"."outcome" in ('running', 'succeeded') and "attempts"."error_class" is null)
        or ("attempts"."outcome" = 'failed' and "attempts"."error_class" is not null
            and "attempts"."error_text" is not null and btrim("attempts"."error_text") <> ''));--> statement-breakpoint
DROP TYPE "public"."attempt_outcome";