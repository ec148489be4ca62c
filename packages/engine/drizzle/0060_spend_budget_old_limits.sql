ALTER TABLE "spend_budget_usage" DROP COLUMN "limit_micros";--> statement-breakpoint
ALTER TABLE "spend_budget_usage" DROP COLUMN "retry_cap_micros";