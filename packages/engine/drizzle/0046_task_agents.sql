CREATE TABLE "task_agents" (
	"task_id" text PRIMARY KEY NOT NULL,
	"agent" text NOT NULL,
	"queue" text NOT NULL,
	"first_seen_through" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_agents_first_path_known" CHECK ("task_agents"."first_seen_through" in ('step', 'attempt', 'span', 'dead_letter'))
);
--> statement-breakpoint
ALTER TABLE "dead_letters" ADD COLUMN "edit_nonce" text DEFAULT substr(replace(gen_random_uuid()::text, '-', ''), 1, 16) NOT NULL;--> statement-breakpoint
-- Every task seen so far, with the agent it was first seen with: the step engine's tasks first (their row is the
-- one their begins were judged by), then tasks known only from attempt reports and from trace spans, each by its
-- earliest row. A task id with rows of two agents keeps the first path's agent; the other agent's rows stay as
-- they are, and its next write to the task is refused.
INSERT INTO "task_agents" ("task_id", "agent", "queue", "first_seen_through", "created_at")
SELECT "task_id", "agent", "queue", 'step', "created_at" FROM "task_budgets"
ON CONFLICT ("task_id") DO NOTHING;--> statement-breakpoint
INSERT INTO "task_agents" ("task_id", "agent", "queue", "first_seen_through", "created_at")
SELECT DISTINCT ON ("task_id") "task_id", "agent", "agent", 'attempt', "started_at" FROM "attempts"
WHERE "idempotency_key" IS NULL OR "idempotency_key" NOT LIKE 'span:%'
ORDER BY "task_id", "started_at"
ON CONFLICT ("task_id") DO NOTHING;--> statement-breakpoint
INSERT INTO "task_agents" ("task_id", "agent", "queue", "first_seen_through", "created_at")
SELECT DISTINCT ON ("task_id") "task_id", "agent", "agent", 'span', "started_at" FROM "trace_spans"
WHERE "kind" = 'call'
ORDER BY "task_id", "started_at"
ON CONFLICT ("task_id") DO NOTHING;--> statement-breakpoint
INSERT INTO "task_agents" ("task_id", "agent", "queue", "first_seen_through", "created_at")
SELECT DISTINCT ON ("task_id") "task_id", "agent", "queue", 'dead_letter', "created_at" FROM "dead_letters"
ORDER BY "task_id", "created_at"
ON CONFLICT ("task_id") DO NOTHING;
