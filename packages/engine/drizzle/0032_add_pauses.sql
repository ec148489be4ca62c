-- Pauses: a person stops a step, an agent or a downstream; begins it covers wait (PAUSED) until it ends or is
-- resumed, at once or with a ramp. Ramp grants and turned-away begins are counted per minute.
CREATE TABLE "pause_ramp_minutes" (
	"pause_id" bigint NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"granted" integer NOT NULL,
	CONSTRAINT "pause_ramp_minutes_pkey" PRIMARY KEY("pause_id","minute")
);
--> statement-breakpoint
CREATE TABLE "pause_wait_minutes" (
	"pause_id" bigint NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"task_id" text NOT NULL,
	"waits" integer NOT NULL,
	CONSTRAINT "pause_wait_minutes_pkey" PRIMARY KEY("pause_id","minute","task_id")
);
--> statement-breakpoint
CREATE TABLE "pauses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"agent" text,
	"step" text,
	"downstream" text,
	"reason" text NOT NULL,
	"paused_by" text NOT NULL,
	"paused_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone,
	"resumed_at" timestamp with time zone,
	"resumed_by" text,
	"ramp_start_per_minute" integer,
	"ramp_ends_at" timestamp with time zone,
	CONSTRAINT "pauses_scope_known" CHECK ("pauses"."scope" in ('step', 'agent', 'downstream')),
	CONSTRAINT "pauses_target_fits_scope" CHECK (case "pauses"."scope"
        when 'step' then "pauses"."agent" is not null and "pauses"."step" is not null and "pauses"."downstream" is null
        when 'agent' then "pauses"."agent" is not null and "pauses"."step" is null and "pauses"."downstream" is null
        else "pauses"."agent" is null and "pauses"."step" is null and "pauses"."downstream" is not null end),
	CONSTRAINT "pauses_ends_after_start" CHECK ("pauses"."ends_at" is null or "pauses"."ends_at" > "pauses"."paused_at"),
	CONSTRAINT "pauses_resumed_with_who" CHECK (("pauses"."resumed_at" is null) = ("pauses"."resumed_by" is null)),
	CONSTRAINT "pauses_ramp_after_resume" CHECK (("pauses"."ramp_ends_at" is null) = ("pauses"."ramp_start_per_minute" is null)
        and ("pauses"."ramp_ends_at" is null or ("pauses"."resumed_at" is not null and "pauses"."ramp_ends_at" > "pauses"."resumed_at"))
        and ("pauses"."ramp_start_per_minute" is null or "pauses"."ramp_start_per_minute" >= 1))
);
--> statement-breakpoint
ALTER TABLE "pause_ramp_minutes" ADD CONSTRAINT "pause_ramp_minutes_pause_id_pauses_id_fk" FOREIGN KEY ("pause_id") REFERENCES "public"."pauses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pause_wait_minutes" ADD CONSTRAINT "pause_wait_minutes_pause_id_pauses_id_fk" FOREIGN KEY ("pause_id") REFERENCES "public"."pauses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pauses_one_unresumed_per_target" ON "pauses" USING btree ("scope",coalesce("agent", ''),coalesce("step", ''),coalesce("downstream", '')) WHERE "pauses"."resumed_at" is null;--> statement-breakpoint
CREATE INDEX "pauses_by_agent" ON "pauses" USING btree ("agent","paused_at");--> statement-breakpoint
CREATE INDEX "pauses_by_downstream" ON "pauses" USING btree ("downstream","paused_at");