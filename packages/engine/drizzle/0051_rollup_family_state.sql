CREATE TABLE "rollup_family_state" (
	"family" text PRIMARY KEY NOT NULL,
	"state" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Each family's own state from the columns that held it (rollup_state keeps them for an instance of the release before).
INSERT INTO "rollup_family_state" ("family", "state")
SELECT 'baselines', jsonb_strip_nulls(jsonb_build_object('sharesEnd', "baseline_end", 'daysEnd', "baseline_days_end"))
FROM "rollup_state" WHERE "id" = 1
UNION ALL
SELECT 'execution shapes', jsonb_build_object('filled', "execution_shapes_filled")
FROM "rollup_state" WHERE "id" = 1;
