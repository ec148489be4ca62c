-- Error groups per UTC day, summed from their hours by the rollup pass, so the 7- and 30-day windows read a row per day.
CREATE TABLE "error_group_days" (
	"day" timestamp with time zone NOT NULL,
	"fingerprint" text NOT NULL,
	"failures" integer NOT NULL,
	"tasks" integer NOT NULL,
	"first_failed_at" timestamp with time zone NOT NULL,
	"last_failed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "error_group_days_day_fingerprint_pk" PRIMARY KEY("day","fingerprint")
);
--> statement-breakpoint
INSERT INTO "error_group_days" ("day", "fingerprint", "failures", "tasks", "first_failed_at", "last_failed_at")
SELECT date_trunc('day', "hour", 'UTC'), "fingerprint", sum("failures"), sum("tasks"), min("first_failed_at"), max("last_failed_at")
FROM "error_group_hours" GROUP BY 1, 2;
