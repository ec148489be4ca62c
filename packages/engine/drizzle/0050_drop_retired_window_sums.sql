DROP TABLE "window_sum_ranges" CASCADE;--> statement-breakpoint
DROP TABLE "window_sums" CASCADE;