-- Live retry policy: an admin overrides one step's maximum attempts, retried classes, backoff and new tasks' allowance.
CREATE TABLE "step_policies" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"max_attempts" integer,
	"retried_classes" text[],
	"base_delay_ms" integer,
	"max_delay_ms" integer,
	"retry_allowance" integer,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "step_policies_pkey" PRIMARY KEY("agent","step"),
	CONSTRAINT "step_policies_max_attempts_range" CHECK ("step_policies"."max_attempts" between 1 and 100),
	CONSTRAINT "step_policies_delays" CHECK ("step_policies"."base_delay_ms" >= 0 and "step_policies"."max_delay_ms" >= "step_policies"."base_delay_ms"),
	CONSTRAINT "step_policies_allowance_range" CHECK ("step_policies"."retry_allowance" between 0 and 1000)
);
