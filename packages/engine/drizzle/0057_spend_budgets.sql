CREATE TABLE "spend_budget_usage" (
	"budget_id" bigint NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"spent_micros" bigint DEFAULT 0 NOT NULL,
	"retry_spent_micros" bigint DEFAULT 0 NOT NULL,
	"seen_micros" bigint DEFAULT 0 NOT NULL,
	"reserved_micros" bigint DEFAULT 0 NOT NULL,
	"retry_reserved_micros" bigint DEFAULT 0 NOT NULL,
	"limit_micros" bigint NOT NULL,
	"retry_cap_micros" bigint NOT NULL,
	"refusals" integer DEFAULT 0 NOT NULL,
	"warned_percent" smallint DEFAULT 0 NOT NULL,
	CONSTRAINT "spend_budget_usage_pkey" PRIMARY KEY("budget_id","period_start")
);
--> statement-breakpoint
CREATE TABLE "spend_budgets" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"scope" text NOT NULL,
	"scope_value" text DEFAULT '' NOT NULL,
	"period" text NOT NULL,
	"limit_micros" bigint NOT NULL,
	"warn_percents" smallint[] NOT NULL,
	"on_exhausted" text NOT NULL,
	"first_attempt_percent" smallint,
	"updated_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spend_budgets_name_unique" UNIQUE("name"),
	CONSTRAINT "spend_budgets_scope_known" CHECK ("spend_budgets"."scope" in ('fleet', 'agent', 'owner', 'queue', 'step', 'downstream')),
	CONSTRAINT "spend_budgets_period_known" CHECK ("spend_budgets"."period" in ('hour', 'day', 'month')),
	CONSTRAINT "spend_budgets_exhaustion_known" CHECK ("spend_budgets"."on_exhausted" in ('wait', 'stop')),
	CONSTRAINT "spend_budgets_limit_positive" CHECK ("spend_budgets"."limit_micros" > 0)
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "budget_reservations" jsonb;--> statement-breakpoint
ALTER TABLE "spend_budget_usage" ADD CONSTRAINT "spend_budget_usage_budget_id_spend_budgets_id_fk" FOREIGN KEY ("budget_id") REFERENCES "public"."spend_budgets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spend_budget_usage_period_idx" ON "spend_budget_usage" USING btree ("period_start");