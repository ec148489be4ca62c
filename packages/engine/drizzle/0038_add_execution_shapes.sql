-- The retry-policy simulator's input: executions summed by shape per hour of their first attempt; the next rollup pass fills it.
CREATE TABLE "execution_shape_hours" (
	"hour" timestamp with time zone NOT NULL,
	"agent" text NOT NULL,
	"step" text NOT NULL,
	"shape" text NOT NULL,
	"attempt_number" integer NOT NULL,
	"executions" integer NOT NULL,
	"cost_micros" numeric NOT NULL,
	"to_end_ms" numeric NOT NULL
);
--> statement-breakpoint
ALTER TABLE "rollup_state" ADD COLUMN "execution_shapes_filled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "execution_shape_hours_agent_step_hour_idx" ON "execution_shape_hours" USING btree ("agent","step","hour");