CREATE TABLE "attempt_identities" (
	"task_id" text NOT NULL,
	"step" text NOT NULL,
	"attempt_number" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	CONSTRAINT "attempt_identities_pkey" PRIMARY KEY("task_id","step","attempt_number")
);
--> statement-breakpoint
CREATE INDEX "attempt_identities_started_at_idx" ON "attempt_identities" USING btree ("started_at");--> statement-breakpoint
-- Attempts recorded before this table existed get their identities (the earliest report of each stands).
INSERT INTO "attempt_identities" ("task_id", "step", "attempt_number", "started_at")
	SELECT DISTINCT ON ("task_id", "step", "attempt_number") "task_id", "step", "attempt_number", "started_at"
	FROM "attempts" ORDER BY "task_id", "step", "attempt_number", "started_at";
