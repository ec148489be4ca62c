-- Tamper evidence for the audit log: every record carries its place in one chain, the hash
-- of the record before it and its own hash over its fields and that previous hash, so an
-- edit, a removal or an insertion out of order by someone who can bypass the append-only
-- triggers (a superuser) shows in `npm run audit:verify` (scripts/audit-verify.ts).

-- The canonical text a record's hash is taken over. Each field is written as
-- `<byte length>:<text>` (or `~` for NULL) and the fields joined by `|`, so no two different
-- records share a text. The time is UTC with microseconds and jsonb is in its own canonical
-- form, so the text does not depend on the session's TimeZone or DateStyle.
-- lib/db/audit-chain-hash.ts builds the same text; keep the two in step.
CREATE OR REPLACE FUNCTION public.audit_log_canonical_text(
  id bigint, chain_position bigint, previous_hash text, occurred_at timestamptz,
  actor_type text, actor_id text, action text, target_type text, target_id text,
  reason text, before jsonb, after jsonb
) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT string_agg(CASE WHEN field IS NULL THEN '~' ELSE octet_length(field) || ':' || field END, '|' ORDER BY place)
  FROM unnest(ARRAY[
    id::text, chain_position::text, previous_hash,
    to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    actor_type, actor_id, action, target_type, target_id, reason, before::text, after::text
  ]) WITH ORDINALITY AS fields(field, place)
$$;
--> statement-breakpoint
-- Links each new record to the last one. The advisory lock (held to the end of the writing
-- transaction) makes writers take their places one after another: the next writer reads the
-- last record only once the one before has committed or rolled back, so positions run
-- 1, 2, 3 ... with no gap and no two records share one. 7240117002 is Holdfast's fixed key.
CREATE OR REPLACE FUNCTION public.audit_log_link_record() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  last_record record;
BEGIN
  PERFORM pg_advisory_xact_lock(7240117002);
  SELECT chain_position, record_hash INTO last_record
  FROM public.audit_log WHERE chain_position IS NOT NULL
  ORDER BY chain_position DESC LIMIT 1;
  NEW.chain_position := coalesce(last_record.chain_position, 0) + 1;
  -- The first record's predecessor is a hash of zeros.
  NEW.previous_hash := coalesce(last_record.record_hash, repeat('0', 64));
  NEW.record_hash := encode(sha256(convert_to(public.audit_log_canonical_text(
    NEW.id, NEW.chain_position, NEW.previous_hash, NEW.occurred_at, NEW.actor_type, NEW.actor_id,
    NEW.action, NEW.target_type, NEW.target_id, NEW.reason, NEW.before, NEW.after), 'UTF8')), 'hex');
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_link_into_chain
  BEFORE INSERT ON audit_log
  FOR EACH ROW EXECUTE FUNCTION public.audit_log_link_record();
--> statement-breakpoint
-- Existing records join the chain in the order they were written. The append-only trigger
-- is set aside for this one backfill, inside the migration's own transaction.
LOCK TABLE audit_log IN EXCLUSIVE MODE;
--> statement-breakpoint
ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_or_delete;
--> statement-breakpoint
DO $$
DECLARE
  item record;
  next_position bigint := 0;
  previous text := repeat('0', 64);
  hash text;
BEGIN
  FOR item IN SELECT * FROM public.audit_log WHERE chain_position IS NULL ORDER BY id LOOP
    next_position := next_position + 1;
    hash := encode(sha256(convert_to(public.audit_log_canonical_text(
      item.id, next_position, previous, item.occurred_at, item.actor_type, item.actor_id,
      item.action, item.target_type, item.target_id, item.reason, item.before, item.after), 'UTF8')), 'hex');
    UPDATE public.audit_log SET chain_position = next_position, previous_hash = previous, record_hash = hash WHERE id = item.id;
    previous := hash;
  END LOOP;
END $$;
--> statement-breakpoint
ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_or_delete;
