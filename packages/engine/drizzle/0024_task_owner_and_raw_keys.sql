-- A task belongs to its agent: the queue it was first seen with is stored beside its agent. Existing tasks take
-- the queue their step keys carry, else their agent's name (the step engine's default queue).
ALTER TABLE "task_budgets" ADD COLUMN "queue" text;--> statement-breakpoint
-- One pass over the keys (task_id has no index of its own there), then the tasks no step key names.
UPDATE "task_budgets" AS t SET "queue" = k."queue"
FROM (SELECT DISTINCT ON ("task_id") "task_id", "queue" FROM "idempotency_keys"
      WHERE "task_id" IS NOT NULL AND "queue" IS NOT NULL ORDER BY "task_id") AS k
WHERE k."task_id" = t."task_id";--> statement-breakpoint
UPDATE "task_budgets" SET "queue" = "agent" WHERE "queue" IS NULL;--> statement-breakpoint
ALTER TABLE "task_budgets" ALTER COLUMN "queue" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "begun_by" text;--> statement-breakpoint
-- Raw keys (claimed through /api/v1/keys/* or claimKey, never by the step engine, which always stores the
-- step's agent) move under the `raw:` prefix, so no raw claim can ever name a step key. A raw name that already
-- starts with it keeps it (a claim of `raw:x` and of `x` name one key). Their holds follow.
WITH "renamed" AS (
  UPDATE "idempotency_keys" SET "key" = 'raw:' || "key"
  WHERE "agent" IS NULL AND "key" NOT LIKE 'raw:%'
  RETURNING "key"
)
UPDATE "holds" SET "item_id" = "renamed"."key"
FROM "renamed"
WHERE "holds"."item_type" = 'key' AND 'raw:' || "holds"."item_id" = "renamed"."key";
--> statement-breakpoint
-- During a rolling upgrade an instance of the previous version creates tasks without a queue: they take their
-- agent's name, as the step engine's default queue always was.
CREATE FUNCTION "task_budgets_queue_defaults_to_agent"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."queue" := coalesce(NEW."queue", NEW."agent");
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "task_budgets_queue_defaults_to_agent" BEFORE INSERT ON "task_budgets"
  FOR EACH ROW EXECUTE FUNCTION "task_budgets_queue_defaults_to_agent"();
