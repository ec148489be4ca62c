-- The simulated downstreams the demo agents act on (see lib/fleet/tables.ts). Applied by
-- applyFleetMigrations in the schema it made; statements are split on the breakpoint lines.
CREATE TABLE holdfast_demo.fleet_email_outbox (
	id bigserial PRIMARY KEY NOT NULL,
	task_id text NOT NULL,
	recipient text NOT NULL,
	subject text NOT NULL,
	sent_at timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE holdfast_demo.fleet_payment_ledger (
	idempotency_key text PRIMARY KEY NOT NULL,
	task_id text NOT NULL,
	amount_micros bigint NOT NULL,
	charged_at timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE holdfast_demo.fleet_publications (
	id bigserial PRIMARY KEY NOT NULL,
	task_id text NOT NULL,
	page text NOT NULL,
	published_at timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Whoever runs the fleet owns these tables. The console reads them as the application role
-- (holdfast_app), and a fleet run later as that role must be able to write them: when the
-- fleet runs as another role (a superuser, the owner), that role gets the same rights the
-- product's migrations give it in public, here and for tables later fleet migrations make.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'holdfast_app') OR current_user = 'holdfast_app' THEN
    RETURN;
  END IF;
  GRANT USAGE ON SCHEMA holdfast_demo TO holdfast_app;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA holdfast_demo TO holdfast_app;
  GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA holdfast_demo TO holdfast_app;
  ALTER DEFAULT PRIVILEGES IN SCHEMA holdfast_demo GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO holdfast_app;
  ALTER DEFAULT PRIVILEGES IN SCHEMA holdfast_demo GRANT USAGE, SELECT ON SEQUENCES TO holdfast_app;
END $$;
