CREATE TABLE "step_sources" (
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"source" text NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "step_sources_pkey" PRIMARY KEY("agent","step","source"),
	CONSTRAINT "step_sources_source_known" CHECK ("step_sources"."source" in ('library', 'http', 'traces'))
);
--> statement-breakpoint
CREATE TABLE "error_class_rules" (
	"position" integer NOT NULL,
	"http_status_from" integer,
	"http_status_to" integer,
	"error_type_contains" text[],
	"error_class" "error_class" NOT NULL,
	CONSTRAINT "error_class_rules_pkey" PRIMARY KEY("position"),
	CONSTRAINT "error_class_rules_one_condition" CHECK (("error_class_rules"."error_type_contains" is null) = ("error_class_rules"."http_status_from" is not null and "error_class_rules"."http_status_to" is not null)),
	CONSTRAINT "error_class_rules_status_range" CHECK ("error_class_rules"."http_status_from" is null or ("error_class_rules"."http_status_from" between 100 and 599
        and "error_class_rules"."http_status_to" between "error_class_rules"."http_status_from" and 599)),
	CONSTRAINT "error_class_rules_words" CHECK ("error_class_rules"."error_type_contains" is null or cardinality("error_class_rules"."error_type_contains") between 1 and 20)
);
--> statement-breakpoint
CREATE TABLE "price_overrides" (
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"input_per_million" numeric(14, 6) NOT NULL,
	"output_per_million" numeric(14, 6) NOT NULL,
	"cache_read_per_million" numeric(14, 6),
	"cache_write_per_million" numeric(14, 6),
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "price_overrides_pkey" PRIMARY KEY("provider","model"),
	CONSTRAINT "price_overrides_model_named" CHECK (btrim("price_overrides"."model") <> ''),
	CONSTRAINT "price_overrides_prices_not_negative" CHECK ("price_overrides"."input_per_million" >= 0 and "price_overrides"."output_per_million" >= 0
        and coalesce("price_overrides"."cache_read_per_million", 0) >= 0 and coalesce("price_overrides"."cache_write_per_million", 0) >= 0)
);
--> statement-breakpoint
CREATE TABLE "refused_call_statuses" (
	"http_status" integer PRIMARY KEY NOT NULL,
	CONSTRAINT "refused_call_statuses_http_status" CHECK ("refused_call_statuses"."http_status" between 400 and 599)
);
--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "source" text;--> statement-breakpoint
-- Unqualified: the check is cloned to every partition, where "attempts" names no table.
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_source_known" CHECK ("source" in ('library', 'http', 'traces'));--> statement-breakpoint
-- The failed-call rule's default statuses: refused before generation, so not billed.
INSERT INTO "refused_call_statuses" ("http_status") VALUES (400), (401), (403), (404), (413), (422), (429);
--> statement-breakpoint
-- The default error class rules for spans (docs/agents/opentelemetry.md), first match by position.
INSERT INTO "error_class_rules" ("position", "http_status_from", "http_status_to", "error_type_contains", "error_class") VALUES
  (10, 429, 429, NULL, 'rate_limited'),
  (20, NULL, NULL, ARRAY['rate_limit', 'ratelimit', 'rate-limit', 'rate limit', 'too many requests'], 'rate_limited'),
  (30, 408, 408, NULL, 'transient'),
  (40, 500, 599, NULL, 'transient'),
  (50, NULL, NULL, ARRAY['timeout', 'time_out', 'time-out', 'timed out', 'timedout', 'econnreset', 'econnrefused', 'epipe', 'overloaded', 'unavailable'], 'transient'),
  (60, 400, 499, NULL, 'permanent');
