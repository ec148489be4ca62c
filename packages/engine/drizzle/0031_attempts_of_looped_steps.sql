-- A step run in a loop (the step protocol's `iteration`) has one key per pass, and each pass numbers its attempts
-- from 1. The attempt identity was (task, step, attempt number), so a second pass's attempts collided with the
-- first's and were not logged. The iteration joins both keys; rows logged before are given the pass their key names.
ALTER TABLE "attempt_identities" ADD COLUMN "iteration" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "iteration" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "attempts" SET "iteration" = substr("idempotency_key", length("task_id") + length("step") + 3)::int
WHERE "idempotency_key" LIKE '%#%'
  AND starts_with("idempotency_key", "task_id" || '/' || "step" || '#')
  AND substr("idempotency_key", length("task_id") + length("step") + 3) ~ '^[0-9]{1,9}$';--> statement-breakpoint
UPDATE "attempt_identities" i SET "iteration" = a."iteration"
FROM "attempts" a
WHERE a."iteration" <> 0 AND a."task_id" = i."task_id" AND a."step" = i."step"
  AND a."attempt_number" = i."attempt_number" AND a."started_at" = i."started_at";--> statement-breakpoint
ALTER TABLE "attempt_identities" DROP CONSTRAINT "attempt_identities_pkey";--> statement-breakpoint
ALTER TABLE "attempt_identities" ADD CONSTRAINT "attempt_identities_pkey" PRIMARY KEY("task_id","step","iteration","attempt_number");--> statement-breakpoint
ALTER TABLE "attempts" DROP CONSTRAINT "attempts_pkey";--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_pkey" PRIMARY KEY("task_id","step","iteration","attempt_number","started_at");--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_iteration_not_negative" CHECK ("iteration" >= 0);
