ALTER TABLE "audit_log" ADD COLUMN "chain_position" bigint;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "previous_hash" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "record_hash" text;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "allowed_agents" text[];--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "allowed_queues" text[];--> statement-breakpoint
ALTER TABLE "people" ADD COLUMN "session_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_chain_position_idx" ON "audit_log" USING btree ("chain_position");