-- The error class rules learn the class names SDKs put in `error.type` or an exception's `exception.type` when a
-- failed span carries no HTTP status (lib/traces/error-class-rules.ts, DEFAULT_ERROR_CLASS_RULES): the official
-- OpenTelemetry instrumentation of the OpenAI SDK records `InternalServerError` for a call that failed with 500,
-- and no status, which no rule matched (`unknown`, never retried). The new rules are added only where the table
-- still holds the rules migration 0029 seeded, unchanged: rules an admin edited stay as the admin left them (the
-- new ones can be added on Settings, Costs and errors).
DO $$
BEGIN
  IF (SELECT count(*) FROM "error_class_rules") = 6 AND NOT EXISTS (
    SELECT 1 FROM (VALUES
      (10, 429, 429, NULL::text[], 'rate_limited'::error_class),
      (20, NULL, NULL, ARRAY['rate_limit', 'ratelimit', 'rate-limit', 'rate limit', 'too many requests'], 'rate_limited'),
      (30, 408, 408, NULL, 'transient'),
      (40, 500, 599, NULL, 'transient'),
      (50, NULL, NULL, ARRAY['timeout', 'time_out', 'time-out', 'timed out', 'timedout', 'econnreset', 'econnrefused', 'epipe', 'overloaded', 'unavailable'], 'transient'),
      (60, 400, 499, NULL, 'permanent')
    ) AS seeded("position", "from", "to", "words", "class")
    WHERE NOT EXISTS (
      SELECT 1 FROM "error_class_rules" r
      WHERE r."position" = seeded."position"
        AND r."http_status_from" IS NOT DISTINCT FROM seeded."from"
        AND r."http_status_to" IS NOT DISTINCT FROM seeded."to"
        AND r."error_type_contains" IS NOT DISTINCT FROM seeded."words"
        AND r."error_class" = seeded."class"))
  THEN
    INSERT INTO "error_class_rules" ("position", "http_status_from", "http_status_to", "error_type_contains", "error_class") VALUES
      (52, NULL, NULL, ARRAY['internalservererror', 'internal_server_error', 'apiconnectionerror', 'api_error'], 'transient'),
      (54, NULL, NULL, ARRAY['noobjectgenerated', 'nooutputgenerated', 'typevalidationerror', 'jsonparseerror', 'invalidtoolinput', 'outputparserexception'], 'invalid_output'),
      (65, NULL, NULL, ARRAY['badrequesterror', 'authenticationerror', 'permissiondeniederror', 'notfounderror', 'unprocessableentityerror', 'invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error'], 'permanent');
  END IF;
END $$;
