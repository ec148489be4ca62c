import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';

/** Resolved alerts (and console tests) are kept this long with their deliveries and attempts, for the history page. */
export const ALERT_HISTORY_RETENTION_DAYS = 30;
/** budget_refusal_minutes feeds a five-minute rate: a day of it is plenty. */
export const REFUSAL_MINUTES_RETENTION_HOURS = 24;
/** Instances removed per pass at most, so one pass after a long pause stays short; the rest go next minute. */
const TRIM_BATCH = 1_000;

export interface TrimmedAlertHistory {
  refusalMinutes: number;
  instances: number;
  tests: number;
}

/**
 * Deletes what the alerts no longer need: refusal minutes older than a day,
 * and instances resolved more than ALERT_HISTORY_RETENTION_DAYS ago together
 * with their outbox rows and attempts. An instance with a delivery still
 * pending is kept until that delivery ends.
 */
export async function trimAlertHistory(db: Executor, options: { now: Date }): Promise<TrimmedAlertHistory> {
  const now = sql`${options.now.toISOString()}::timestamptz`;
  const refusalMinutes = await db.execute(sql`
    delete from budget_refusal_minutes where minute < ${now} - make_interval(hours => ${REFUSAL_MINUTES_RETENTION_HOURS})`);

  // One statement: the foreign keys are checked at its end, when attempts, deliveries and instances are all gone.
  const [trimmed] = await db.execute<{ instances: number; tests: number }>(sql`
    with old_instances as (
      select id from alert_instances instance
      where status = 'resolved' and resolved_at < ${now} - make_interval(days => ${ALERT_HISTORY_RETENTION_DAYS})
        and not exists (select 1 from alert_deliveries d where d.instance_id = instance.id and d.status = 'pending')
      order by resolved_at
      limit ${TRIM_BATCH}
    ), old_tests as (
      select id from alert_deliveries
      where instance_id is null and status <> 'pending'
        and created_at < ${now} - make_interval(days => ${ALERT_HISTORY_RETENTION_DAYS})
      limit ${TRIM_BATCH}
    ), old_deliveries as (
      select id from alert_deliveries where instance_id in (select id from old_instances)
      union all
      select id from old_tests
    ), gone_attempts as (
      delete from alert_delivery_attempts where delivery_id in (select id from old_deliveries)
    ), gone_deliveries as (
      delete from alert_deliveries where id in (select id from old_deliveries)
    ), gone_instances as (
      delete from alert_instances where id in (select id from old_instances) returning id
    )
    select (select count(*)::int from gone_instances) as instances, (select count(*)::int from old_tests) as tests`);
  return { refusalMinutes: refusalMinutes.count, instances: trimmed?.instances ?? 0, tests: trimmed?.tests ?? 0 };
}
