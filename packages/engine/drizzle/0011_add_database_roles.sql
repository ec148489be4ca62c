-- Two roles, so that the audit log is append-only for the application too (issue #12):
--   holdfast_owner owns every table and runs the migrations; it is not a superuser.
--   holdfast_app is what the application connects as: it owns nothing, cannot create in
--   the public schema, may change the tables it works on, and may only read and append to
--   audit_log. Owning no table, it cannot disable, drop or replace audit_log's triggers.
-- Roles are cluster-wide and an administrator usually creates them first (with passwords,
-- see README, Security: roles). Every statement below is safe to run again and does what
-- the migrating role may do: it creates missing roles only when allowed to (without LOGIN:
-- an administrator then adds LOGIN and a password), and grants only to roles that exist.
DO $$
DECLARE
  may_create_roles boolean := (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user);
BEGIN
  IF may_create_roles AND NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'holdfast_owner') THEN
    CREATE ROLE holdfast_owner NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
  END IF;
  IF may_create_roles AND NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'holdfast_app') THEN
    CREATE ROLE holdfast_app NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
  END IF;
END $$;
--> statement-breakpoint
-- The public schema: usage for the application, creation for nobody but its owner. Only the
-- schema's owner (the database owner from PostgreSQL 15) may change that; others skip it.
DO $$
BEGIN
  BEGIN
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'holdfast_app') THEN
      REVOKE CREATE ON SCHEMA public FROM holdfast_app;
      GRANT USAGE ON SCHEMA public TO holdfast_app;
    END IF;
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'not the owner of schema public: its privileges are left as they are';
  END;
END $$;
--> statement-breakpoint
-- Table privileges. The application changes rows in every table but audit_log, where it
-- may only read and append; TRUNCATE, TRIGGER and REFERENCES it never gets. Default
-- privileges give the same to tables the owner creates later (new migrations, and the
-- attempt log's daily partitions made by the functions below).
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'holdfast_app') THEN
    RAISE NOTICE 'role holdfast_app does not exist: no privileges granted';
    RETURN;
  END IF;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO holdfast_app;
  GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO holdfast_app;
  REVOKE UPDATE, DELETE, TRUNCATE, TRIGGER, REFERENCES ON public.audit_log FROM holdfast_app;
  GRANT SELECT, INSERT ON public.audit_log TO holdfast_app;
  -- For the migrating role (the owner, or whoever migrates an older setup) ...
  ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO holdfast_app;
  ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO holdfast_app;
  -- ... and for the owner role by name, when the migrating role may speak for it.
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'holdfast_owner') AND current_user <> 'holdfast_owner'
     AND pg_has_role(current_user, 'holdfast_owner', 'MEMBER') THEN
    ALTER DEFAULT PRIVILEGES FOR ROLE holdfast_owner IN SCHEMA public
      GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO holdfast_app;
    ALTER DEFAULT PRIVILEGES FOR ROLE holdfast_owner IN SCHEMA public
      GRANT USAGE, SELECT ON SEQUENCES TO holdfast_app;
  END IF;
END $$;
--> statement-breakpoint
-- The attempt log's daily partitions are DDL, which only the table's owner may run. The
-- application gets exactly these operations as SECURITY DEFINER functions (owned by whoever
-- owns the tables, i.e. the migrating role): arguments are dates, so no name or SQL can be
-- passed in; the search_path is fixed and every name is schema-qualified.

-- Creates attempts_pYYYYMMDD for one UTC day, moves that day's rows out of the default
-- partition into it, and attaches it. Returns false when the day has a partition already.
CREATE OR REPLACE FUNCTION public.holdfast_create_attempt_partition(day date) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  partition_name text;
  day_start timestamptz;
  day_end timestamptz;
BEGIN
  -- Four-digit years keep the name's shape; the app's clock may run ahead (simulations, tests).
  IF day IS NULL OR day < date '2000-01-01' OR day > date '2999-12-31' THEN
    RAISE EXCEPTION 'holdfast_create_attempt_partition: day % is out of range', day
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  partition_name := 'attempts_p' || to_char(day, 'YYYYMMDD');
  IF to_regclass('public.' || partition_name) IS NOT NULL THEN
    RETURN false;
  END IF;
  -- UTC midnights, whatever the caller's TimeZone.
  day_start := day::timestamp AT TIME ZONE 'UTC';
  day_end := (day + 1)::timestamp AT TIME ZONE 'UTC';
  -- Nobody may write to the default partition between moving the day's rows out and
  -- attaching the day: a row landing there in between would make the attach fail.
  LOCK TABLE public.attempts_default IN ACCESS EXCLUSIVE MODE;
  EXECUTE format('CREATE TABLE public.%I (LIKE public.attempts INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', partition_name);
  EXECUTE format(
    'WITH moved AS (DELETE FROM public.attempts_default WHERE started_at >= $1 AND started_at < $2 RETURNING *) '
    'INSERT INTO public.%I SELECT * FROM moved', partition_name)
    USING day_start, day_end;
  EXECUTE format('ALTER TABLE public.attempts ATTACH PARTITION public.%I FOR VALUES FROM (%L) TO (%L)',
    partition_name, to_char(day, 'YYYY-MM-DD') || ' 00:00:00+00', to_char(day + 1, 'YYYY-MM-DD') || ' 00:00:00+00');
  RETURN true;
END;
$$;
--> statement-breakpoint
-- Drops the daily partition of one UTC day. Today and yesterday by the database's clock are
-- refused (the shortest retention is two days), so a mistaken or hostile caller can never
-- drop the days being written now; nothing but a partition of the attempt log is dropped.
CREATE OR REPLACE FUNCTION public.holdfast_drop_attempt_partition(day date) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  partition_name text;
BEGIN
  IF day IS NULL OR day BETWEEN (now() AT TIME ZONE 'UTC')::date - 1 AND (now() AT TIME ZONE 'UTC')::date THEN
    RAISE EXCEPTION 'holdfast_drop_attempt_partition: day % is within retention', day
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  partition_name := 'attempts_p' || to_char(day, 'YYYYMMDD');
  -- Only a partition of the attempt log, never another table of that name.
  IF NOT EXISTS (
    SELECT FROM pg_inherits
    WHERE inhparent = 'public.attempts'::regclass AND inhrelid = to_regclass('public.' || partition_name)
  ) THEN
    RETURN false;
  END IF;
  EXECUTE format('DROP TABLE public.%I', partition_name);
  RETURN true;
END;
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION public.holdfast_create_attempt_partition(date) FROM PUBLIC;
--> statement-breakpoint
REVOKE ALL ON FUNCTION public.holdfast_drop_attempt_partition(date) FROM PUBLIC;
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'holdfast_app') THEN
    GRANT EXECUTE ON FUNCTION public.holdfast_create_attempt_partition(date) TO holdfast_app;
    GRANT EXECUTE ON FUNCTION public.holdfast_drop_attempt_partition(date) TO holdfast_app;
  END IF;
END $$;
