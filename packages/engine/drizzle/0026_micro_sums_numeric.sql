-- Both columns of a table in one statement: one rewrite of the table, not two.
ALTER TABLE "all_steps_rollups" ALTER COLUMN "cost_micros" SET DATA TYPE numeric, ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "attempt_rollups" ALTER COLUMN "cost_micros" SET DATA TYPE numeric, ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "span_rollups" ALTER COLUMN "cost_micros" SET DATA TYPE numeric, ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "window_sums" ALTER COLUMN "cost_micros" SET DATA TYPE numeric, ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric;--> statement-breakpoint
ALTER TABLE "attempt_totals" ALTER COLUMN "cost_micros" SET DATA TYPE numeric, ALTER COLUMN "cost_micros" SET DEFAULT '0',
  ALTER COLUMN "retry_cost_micros" SET DATA TYPE numeric, ALTER COLUMN "retry_cost_micros" SET DEFAULT '0';
