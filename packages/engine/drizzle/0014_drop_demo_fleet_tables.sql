-- The demo fleet's tables leave the product (issue 15): the fleet now makes its own, in its own
-- schema (lib/fleet/migrations). Databases migrated before this still have the old copies in
-- public, holding demo data only (simulated e-mails, charges and pages); the fleet starts
-- afresh in its schema on its next start. Fresh databases never had them (0007 is empty now).
-- A table is dropped only when it is the demo's (those three names, plain tables) and the
-- migrating role may drop it; anything else (another owner, a view depending on it) is left
-- as it is with a notice, so that this migration can never stop an upgrade.
DO $$
DECLARE
  demo_table text;
BEGIN
  FOREACH demo_table IN ARRAY ARRAY['fleet_email_outbox', 'fleet_payment_ledger', 'fleet_publications'] LOOP
    CONTINUE WHEN NOT EXISTS (
      SELECT FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relname = demo_table AND c.relkind = 'r'
    );
    IF NOT EXISTS (
      SELECT FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relname = demo_table AND pg_has_role(current_user, c.relowner, 'USAGE')
    ) THEN
      RAISE NOTICE 'public.% belongs to another role: left in place', demo_table;
      CONTINUE;
    END IF;
    BEGIN
      EXECUTE format('DROP TABLE public.%I', demo_table);
    EXCEPTION WHEN dependent_objects_still_exist THEN
      RAISE NOTICE 'public.% has objects depending on it: left in place', demo_table;
    END;
  END LOOP;
END $$;
