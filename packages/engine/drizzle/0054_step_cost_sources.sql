CREATE TABLE "step_cost_sources" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"cost_source" text NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "step_cost_sources_pkey" PRIMARY KEY("agent","step","cost_source"),
	CONSTRAINT "step_cost_sources_known" CHECK ("step_cost_sources"."cost_source" in ('reported', 'priced', 'rule', 'none', 'unrecorded'))
);
--> statement-breakpoint
-- The attempts already kept, costed as they were: the rollup pass notes only the attempts it rolls from now on.
INSERT INTO "step_cost_sources" ("agent", "step", "cost_source", "last_seen_at")
SELECT "agent", "step", coalesce("cost_source", 'unrecorded'), max("started_at") FROM "attempts" WHERE "outcome" <> 'running' GROUP BY 1, 2, 3;
