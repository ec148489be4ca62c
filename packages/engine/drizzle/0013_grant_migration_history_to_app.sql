-- The health check (lib/db/migration-state.ts) reads which migrations were applied, as the
-- application role: it may read drizzle's record of them, and change nothing there.
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'holdfast_app') THEN
    GRANT USAGE ON SCHEMA drizzle TO holdfast_app;
    GRANT SELECT ON drizzle.__drizzle_migrations TO holdfast_app;
  END IF;
END $$;
