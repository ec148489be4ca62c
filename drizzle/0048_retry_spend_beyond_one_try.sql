ALTER TABLE "attempts" ADD COLUMN "retry_cost_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "execution_shape_hours" ADD COLUMN "retry_cost_micros" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_retry_cost_not_negative" CHECK ("retry_cost_micros" >= 0);--> statement-breakpoint
-- Retry-attributable spend is what an execution spent beyond what one try would have cost: the
-- succeeded attempt's cost when it succeeded, else the first attempt's (lib/core/attempts/retry-spend.ts).
-- Each attempt carries its share as it ends, so the figure sums like cost and only grows:
--   a failed retry adds its own cost; a succeeded retry adds the first attempt's cost;
--   a first attempt adds nothing, unless a retry of it had succeeded before its cost was written
--   (a report that arrived late, a superseded attempt's end): then its cost, which that retry could not add.
-- Spans compute the same in the statement that writes a whole execution (lib/traces/store-spans.ts), so
-- this trigger leaves their rows alone. The advisory lock (per execution, only where another row is read)
-- makes a first attempt and its succeeded retry written at the same instant see each other.
CREATE FUNCTION "attempts_retry_cost"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	first_cost bigint;
	cost_added bigint;
BEGIN
	IF TG_OP = 'UPDATE' AND NEW.outcome IS NOT DISTINCT FROM OLD.outcome
		AND NEW.cost_micros IS NOT DISTINCT FROM OLD.cost_micros THEN
		RETURN NEW;
	END IF;
	IF NEW.attempt_number > 1 THEN
		IF NEW.outcome = 'failed' THEN
			NEW.retry_cost_micros := NEW.cost_micros;
		ELSIF NEW.outcome = 'succeeded' THEN
			PERFORM pg_advisory_xact_lock(hashtextextended('r:' || NEW.task_id || '/' || NEW.step || '/' || NEW.iteration, 0));
			SELECT first.cost_micros INTO first_cost FROM attempts first
			WHERE first.task_id = NEW.task_id AND first.step = NEW.step AND first.iteration = NEW.iteration
				AND first.attempt_number = 1 AND first.started_at <= NEW.started_at
			ORDER BY first.started_at DESC LIMIT 1;
			NEW.retry_cost_micros := coalesce(first_cost, 0);
		ELSE
			NEW.retry_cost_micros := 0;
		END IF;
		RETURN NEW;
	END IF;
	cost_added := NEW.cost_micros - CASE WHEN TG_OP = 'UPDATE' THEN OLD.cost_micros ELSE 0 END;
	NEW.retry_cost_micros := CASE WHEN TG_OP = 'UPDATE' THEN OLD.retry_cost_micros ELSE 0 END;
	IF cost_added > 0 THEN
		PERFORM pg_advisory_xact_lock(hashtextextended('r:' || NEW.task_id || '/' || NEW.step || '/' || NEW.iteration, 0));
		IF EXISTS (SELECT 1 FROM attempts later
			WHERE later.task_id = NEW.task_id AND later.step = NEW.step AND later.iteration = NEW.iteration
				AND later.attempt_number > 1 AND later.outcome = 'succeeded' AND later.started_at >= NEW.started_at) THEN
			NEW.retry_cost_micros := NEW.retry_cost_micros + cost_added;
		END IF;
	END IF;
	RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "attempts_retry_cost" BEFORE INSERT OR UPDATE OF "outcome", "cost_micros" ON "attempts"
	FOR EACH ROW WHEN (NEW.source IS DISTINCT FROM 'traces') EXECUTE FUNCTION "attempts_retry_cost"();--> statement-breakpoint
-- The attempts already stored, by the same rule read over whole executions. Every retry is written, the
-- ones whose share is now 0 too, so the rollup pass re-rolls every hour holding one; the execution shapes
-- are filled afresh (their retry_cost_micros is new).
WITH execution AS (
	SELECT task_id, step, iteration, attempt_number, started_at,
		CASE outcome
			WHEN 'failed' THEN cost_micros
			WHEN 'succeeded' THEN coalesce(sum(cost_micros) FILTER (WHERE attempt_number = 1) OVER whole, 0)
			ELSE 0
		END AS retry_cost
	FROM attempts
	WHERE (task_id, step, iteration) IN (SELECT task_id, step, iteration FROM attempts WHERE attempt_number > 1)
	WINDOW whole AS (PARTITION BY task_id, step, iteration)
)
UPDATE attempts SET retry_cost_micros = execution.retry_cost
FROM execution
WHERE execution.attempt_number > 1 AND attempts.task_id = execution.task_id AND attempts.step = execution.step
	AND attempts.iteration = execution.iteration AND attempts.attempt_number = execution.attempt_number
	AND attempts.started_at = execution.started_at;--> statement-breakpoint
UPDATE "rollup_state" SET "execution_shapes_filled" = false WHERE "id" = 1;
