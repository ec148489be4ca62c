-- A redrive names the task its work runs as (its dead letter's, or a new one for an edited payload) and whether the payload was edited. Existing redrives ran as their dead letter's task.
ALTER TABLE "redrives" ADD COLUMN "task_id" text;--> statement-breakpoint
UPDATE "redrives" SET "task_id" = "dead_letters"."task_id" FROM "dead_letters" WHERE "dead_letters"."id" = "redrives"."dead_letter_id";--> statement-breakpoint
ALTER TABLE "redrives" ALTER COLUMN "task_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "redrives" ADD COLUMN "payload_edited" boolean DEFAULT false NOT NULL;
