ALTER TABLE "all_steps_rollups" ALTER COLUMN "cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "all_steps_rollups" ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "attempt_rollups" ALTER COLUMN "cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "attempt_rollups" ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "span_rollups" ALTER COLUMN "cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "span_rollups" ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "window_sums" ALTER COLUMN "cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "window_sums" ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "attempt_totals" ALTER COLUMN "cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "attempt_totals" ALTER COLUMN "cost_micros" SET DEFAULT '0';--> statement-breakpoint
ALTER TABLE "attempt_totals" ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "attempt_totals" ALTER COLUMN "retry_cost_micros" SET DEFAULT '0';