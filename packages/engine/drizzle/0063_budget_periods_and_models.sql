ALTER TABLE "spend_budgets" DROP CONSTRAINT "spend_budgets_scope_known";--> statement-breakpoint
ALTER TABLE "spend_budgets" DROP CONSTRAINT "spend_budgets_period_known";--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "model" text;--> statement-breakpoint
ALTER TABLE "trace_spans" ADD COLUMN "model" text;--> statement-breakpoint
ALTER TABLE "spend_budgets" ADD COLUMN "reset_every_hours" integer;--> statement-breakpoint
ALTER TABLE "spend_budgets" ADD COLUMN "reset_from" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "spend_budgets" ADD CONSTRAINT "spend_budgets_custom_reset" CHECK (("spend_budgets"."period" = 'custom') = ("spend_budgets"."reset_every_hours" is not null and "spend_budgets"."reset_from" is not null)
        and coalesce("spend_budgets"."reset_every_hours", 1) > 0);--> statement-breakpoint
ALTER TABLE "spend_budgets" ADD CONSTRAINT "spend_budgets_scope_known" CHECK ("spend_budgets"."scope" in ('fleet', 'agent', 'owner', 'queue', 'step', 'downstream', 'model'));--> statement-breakpoint
ALTER TABLE "spend_budgets" ADD CONSTRAINT "spend_budgets_period_known" CHECK ("spend_budgets"."period" in ('hour', 'day', 'month', 'rolling_hour', 'custom'));--> statement-breakpoint
-- Where a budget's period holding `at` starts: the UTC hour, day or month; for a rolling hour, the five-minute
-- bucket (its spend is kept per bucket, and the window is the last twelve); for a custom period, the last reset at
-- or before `at`, counted in whole periods from reset_from. packages/engine/src/core/budgets/budget-periods.ts
-- computes the same in the engine.
CREATE OR REPLACE FUNCTION budget_period_start(period text, reset_every_hours integer, reset_from timestamptz,
  at timestamptz) RETURNS timestamptz LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE period
    WHEN 'rolling_hour' THEN date_bin('5 minutes', at, timestamptz '2000-01-01 00:00:00+00')
    WHEN 'custom' THEN reset_from + make_interval(hours => reset_every_hours
      * floor(extract(epoch FROM (at - reset_from)) / (reset_every_hours * 3600))::integer)
    ELSE date_trunc(period, at, 'UTC')
  END
$$;--> statement-breakpoint
-- The first period_start a budget's current spend sums over: its period's start, or for a rolling hour the bucket
-- 55 minutes before the current one (twelve buckets).
CREATE OR REPLACE FUNCTION budget_window_start(period text, reset_every_hours integer, reset_from timestamptz,
  at timestamptz) RETURNS timestamptz LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT budget_period_start(period, reset_every_hours, reset_from, at)
    - CASE WHEN period = 'rolling_hour' THEN interval '55 minutes' ELSE interval '0' END
$$;
