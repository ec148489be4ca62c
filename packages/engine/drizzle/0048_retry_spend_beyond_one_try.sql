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
-- this trigger leaves their rows alone. A first attempt and its succeeded retry written at the same instant
-- see each other because their writers take turns: the step protocol under its key's row lock, reports
-- under their task's row lock (lib/core/attempts/record-attempt.ts). The trigger takes no lock of its own:
-- a statement writing thousands of attempts would hold thousands.
-- An attempt's cost and outcome where its identity says it started: one partition read (the start given as a
-- value prunes the others before they are opened, in a plan made once: planning afresh for each row over a
-- month of partitions would cost more than the read).
CREATE FUNCTION "attempt_cost_where_started"(task text, step_name text, pass integer, number integer,
	started timestamptz, OUT cost bigint, OUT outcome text) LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
	SELECT a.cost_micros, a.outcome INTO cost, outcome FROM attempts a
	WHERE a.task_id = task AND a.step = step_name AND a.iteration = pass AND a.attempt_number = number
		AND a.started_at = started;
END;
$$;--> statement-breakpoint
CREATE FUNCTION "attempts_retry_cost"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	cost_added bigint;
	later record;
BEGIN
	IF TG_OP = 'UPDATE' AND NEW.outcome IS NOT DISTINCT FROM OLD.outcome
		AND NEW.cost_micros IS NOT DISTINCT FROM OLD.cost_micros THEN
		RETURN NEW;
	END IF;
	IF NEW.attempt_number > 1 THEN
		IF NEW.outcome = 'failed' THEN
			NEW.retry_cost_micros := NEW.cost_micros;
		ELSIF NEW.outcome = 'succeeded' THEN
			NEW.retry_cost_micros := coalesce((
				SELECT (attempt_cost_where_started(i.task_id, i.step, i.iteration, 1, i.started_at)).cost
				FROM attempt_identities i
				WHERE i.task_id = NEW.task_id AND i.step = NEW.step AND i.iteration = NEW.iteration
					AND i.attempt_number = 1), 0);
		ELSE
			NEW.retry_cost_micros := 0;
		END IF;
		RETURN NEW;
	END IF;
	cost_added := NEW.cost_micros - CASE WHEN TG_OP = 'UPDATE' THEN OLD.cost_micros ELSE 0 END;
	NEW.retry_cost_micros := CASE WHEN TG_OP = 'UPDATE' THEN OLD.retry_cost_micros ELSE 0 END;
	IF cost_added <= 0 THEN
		RETURN NEW;
	END IF;
	-- A later attempt of this execution that succeeded already. In the usual case there is no later attempt,
	-- which one probe of the identities says.
	FOR later IN SELECT i.attempt_number, i.started_at FROM attempt_identities i
		WHERE i.task_id = NEW.task_id AND i.step = NEW.step AND i.iteration = NEW.iteration AND i.attempt_number > 1
	LOOP
		IF (attempt_cost_where_started(NEW.task_id, NEW.step, NEW.iteration, later.attempt_number,
				later.started_at)).outcome = 'succeeded' THEN
			NEW.retry_cost_micros := NEW.retry_cost_micros + cost_added;
			EXIT;
		END IF;
	END LOOP;
	RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "attempts_retry_cost" BEFORE INSERT OR UPDATE OF "outcome", "cost_micros" ON "attempts"
	FOR EACH ROW WHEN (NEW.source IS DISTINCT FROM 'traces' AND (NEW.attempt_number > 1 OR NEW.cost_micros > 0))
	EXECUTE FUNCTION "attempts_retry_cost"();--> statement-breakpoint
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
