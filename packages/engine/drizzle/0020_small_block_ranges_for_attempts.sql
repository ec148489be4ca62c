-- Smaller block ranges for the raw log's time index (16 pages instead of 128): a read of the few minutes
-- at a window's edge scans about that much. Rebuilt on every partition; a BRIN build is one pass over each.
DROP INDEX "attempts_started_at_idx";--> statement-breakpoint
CREATE INDEX "attempts_started_at_idx" ON "attempts" USING brin ("started_at") WITH (pages_per_range=16,autosummarize=on);