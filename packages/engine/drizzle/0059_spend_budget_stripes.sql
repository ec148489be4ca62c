ALTER TABLE "spend_budget_usage" ADD COLUMN "stripe" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spend_budget_usage" ADD COLUMN "share_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spend_budget_usage" ADD COLUMN "retry_share_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "spend_budget_usage" ADD COLUMN "cut_limit_micros" bigint DEFAULT -1 NOT NULL;--> statement-breakpoint
ALTER TABLE "spend_budget_usage" ADD COLUMN "cut_retry_cap_micros" bigint DEFAULT -1 NOT NULL;--> statement-breakpoint
ALTER TABLE "spend_budget_usage" DROP CONSTRAINT "spend_budget_usage_pkey";
--> statement-breakpoint
ALTER TABLE "spend_budget_usage" ADD CONSTRAINT "spend_budget_usage_pkey" PRIMARY KEY("budget_id","period_start","stripe");