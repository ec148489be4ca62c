-- A task may name the task that started it (a sub-agent's parent); its page lists both ways.
ALTER TABLE "task_budgets" ADD COLUMN "parent_task_id" text;--> statement-breakpoint
CREATE INDEX "task_budgets_parent_task_id_idx" ON "task_budgets" USING btree ("parent_task_id") WHERE "task_budgets"."parent_task_id" is not null;