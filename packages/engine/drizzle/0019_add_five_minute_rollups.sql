ALTER TABLE "attempt_latency_rollups" DROP CONSTRAINT "attempt_latency_rollups_grain_known";--> statement-breakpoint
ALTER TABLE "attempt_rollups" DROP CONSTRAINT "attempt_rollups_grain_known";--> statement-breakpoint
ALTER TABLE "all_steps_rollups" DROP CONSTRAINT "all_steps_rollups_grain_known";--> statement-breakpoint
ALTER TABLE "rollup_state" ADD COLUMN "fine_rolled_to" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "attempt_latency_rollups" ADD CONSTRAINT "attempt_latency_rollups_grain_known" CHECK ("attempt_latency_rollups"."grain" in ('5min', 'hour', 'day'));--> statement-breakpoint
ALTER TABLE "attempt_rollups" ADD CONSTRAINT "attempt_rollups_grain_known" CHECK ("attempt_rollups"."grain" in ('5min', 'hour', 'day'));--> statement-breakpoint
ALTER TABLE "all_steps_rollups" ADD CONSTRAINT "all_steps_rollups_grain_known" CHECK ("all_steps_rollups"."grain" in ('5min', 'hour', 'day'));--> statement-breakpoint
-- Five-minute rows can only be summed from the raw log: the next rollup pass rolls every hour
-- the raw log still holds afresh (as after a restore), writing them beside the hourly rows.
UPDATE "rollup_state" SET "rolled_to" = NULL, "fine_rolled_to" = NULL;
