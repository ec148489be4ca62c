-- Error groups: failures grouped by agent, step, error class and the error's pattern (its first line with numbers, ids, hashes, quoted values and addresses taken out), counted per hour by the rollup pass; dead letters carry their group's fingerprint.
CREATE FUNCTION holdfast_error_pattern(error_text text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT AS $$
  select left(btrim(
    regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
    regexp_replace(regexp_replace(regexp_replace(regexp_replace(
      -- The first line: a stack trace's frames vary where its cause does not.
      substring(error_text from '^\s*([^\n]*)'),
      '[a-z][a-z0-9+.-]*://[^\s"''<>]+', '<url>', 'gi'),
      '[^\s@"''<>(),;:]+@[^\s@"''<>(),;:]+\.[a-z]{2,}', '<email>', 'gi'),
      '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<uuid>', 'gi'),
      '"[^"]*"', '"…"', 'g'),
      -- Single quotes only where they open a value, not in "can't".
      '(^|[^[:alnum:]])''[^''\n]*''', '\1''…''', 'g'),
      '\m\d{1,3}(\.\d{1,3}){3}(:\d+)?\M', '<ip>', 'g'),
      -- Hashes and hex ids: eight or more hex digits, one a digit at least (not a word like "deadbeef").
      '\m(0x)?(?=[0-9a-f]*[0-9])[0-9a-f]{8,}\M', '<hex>', 'gi'),
      '\d+(\.\d+)?', '<n>', 'g'),
      '\s+', ' ', 'g')), 300)
$$;
--> statement-breakpoint
CREATE FUNCTION holdfast_error_group_key(agent text, step text, error_class error_class, pattern text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select md5(agent || chr(31) || step || chr(31) || coalesce(error_class::text, '') || chr(31) || coalesce(pattern, ''))
$$;
--> statement-breakpoint
CREATE FUNCTION holdfast_error_fingerprint(agent text, step text, error_class error_class, error_text text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select holdfast_error_group_key(agent, step, error_class, holdfast_error_pattern(error_text))
$$;
--> statement-breakpoint
CREATE TABLE "error_group_hours" (
	"hour" timestamp with time zone NOT NULL,
	"fingerprint" text NOT NULL,
	"failures" integer NOT NULL,
	"tasks" integer NOT NULL,
	"first_failed_at" timestamp with time zone NOT NULL,
	"last_failed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "error_group_hours_hour_fingerprint_pk" PRIMARY KEY("hour","fingerprint")
);
--> statement-breakpoint
CREATE TABLE "error_groups" (
	"fingerprint" text PRIMARY KEY NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"error_class" "error_class",
	"pattern" text NOT NULL,
	"sample_error" text,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dead_letters" ADD COLUMN "error_fingerprint" text GENERATED ALWAYS AS (holdfast_error_fingerprint(agent, step, error_class, last_error)) STORED;--> statement-breakpoint
CREATE INDEX "error_group_hours_fingerprint_hour_idx" ON "error_group_hours" USING btree ("fingerprint","hour");--> statement-breakpoint
CREATE INDEX "error_groups_agent_step_idx" ON "error_groups" USING btree ("agent","step");--> statement-breakpoint
CREATE INDEX "error_groups_last_seen_at_idx" ON "error_groups" USING btree ("last_seen_at");--> statement-breakpoint
CREATE INDEX "dead_letters_pending_error_fingerprint_idx" ON "dead_letters" USING btree ("error_fingerprint") WHERE "dead_letters"."status" = 'pending';