-- Downstream breakers per agent: a downstream breaker's key becomes downstream:<agent>/<name> (agent set), so only that agent's failures open it and only its probes close it (docs/operations/security.md, Circuit breakers). The shared downstream:<name> breakers are cleared, not converted: their state and slice counts mix every agent's outcomes (any tenant's, a hostile one's included) and carry no agent to split them by, so giving each agent a copy would keep one tenant's failures holding another's work. Cleared, begins naming a downstream run again, and an agent whose downstream still fails reopens its own breaker after its own minimum volume within one window. Their events go too: nothing reads a downstream breaker's history and the keys they name are no longer made.
DELETE FROM "circuit_breakers" WHERE "scope" = 'downstream';--> statement-breakpoint
DELETE FROM "breaker_slices" WHERE "target" LIKE 'downstream:%';--> statement-breakpoint
DELETE FROM "breaker_events" WHERE "target" LIKE 'downstream:%';--> statement-breakpoint
ALTER TABLE "circuit_breakers" ADD CONSTRAINT "circuit_breakers_target_names" CHECK ("circuit_breakers"."agent" is not null and case "circuit_breakers"."scope"
        when 'step' then "circuit_breakers"."step" is not null and "circuit_breakers"."downstream" is null
          and "circuit_breakers"."target" = 'step:' || "circuit_breakers"."agent" || '/' || "circuit_breakers"."step"
        else "circuit_breakers"."step" is null and "circuit_breakers"."downstream" is not null
          and "circuit_breakers"."target" = 'downstream:' || "circuit_breakers"."agent" || '/' || "circuit_breakers"."downstream" end);
--> statement-breakpoint
-- During a rolling upgrade an instance of the previous version still opens a shared downstream:<name> breaker (no
-- agent) when failures trip it. The check above would refuse that row and fail its finish; the row is skipped
-- instead, so the previous version can no longer open a breaker that holds every agent, and its finish commits.
CREATE FUNCTION "circuit_breakers_skip_shared_downstream"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.scope = 'downstream' AND NEW.agent IS NULL THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "circuit_breakers_skip_shared_downstream" BEFORE INSERT ON "circuit_breakers"
	FOR EACH ROW EXECUTE FUNCTION "circuit_breakers_skip_shared_downstream"();
