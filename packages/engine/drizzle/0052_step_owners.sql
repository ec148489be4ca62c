CREATE TABLE "step_owners" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"owner" text NOT NULL,
	"contact" text,
	"runbook_url" text,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "step_owners_pkey" PRIMARY KEY("agent","step"),
	CONSTRAINT "step_owners_owner_named" CHECK ("step_owners"."owner" ~ '^(person|team):.+'),
	CONSTRAINT "step_owners_contact_length" CHECK (char_length("step_owners"."contact") <= 200),
	CONSTRAINT "step_owners_runbook_url" CHECK ("step_owners"."runbook_url" ~ '^(https?://|/[^/])' and char_length("step_owners"."runbook_url") <= 2000)
);
--> statement-breakpoint
CREATE INDEX "task_budgets_agent_created_at_idx" ON "task_budgets" USING btree ("agent","created_at" DESC NULLS LAST);