import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import type { StepName } from '@holdfast/engine/rollups';
import type { TimeRange } from '@holdfast/protocol/time-window';

/** What happened to a step that a person, a brake or a redrive did: marked on its charts and listed under them. */
export type StepEventKind =
  | 'paused'
  | 'resumed'
  | 'ramping'
  | 'ramp_ended'
  | 'breaker_opened'
  | 'breaker_probing'
  | 'breaker_closed'
  | 'breaker_reopened'
  | 'policy_changed'
  | 'redriven';

export interface StepEvent {
  /** ISO. */
  at: string;
  kind: StepEventKind;
  /** Who, or what: the pause's author, the policy change's action, how many redrives. */
  detail: string | null;
}

/** At most this many events are drawn: a storm of redrives is one mark per bucket anyway. */
const EVENTS_SHOWN = 200;

/**
 * The window's pauses, resumes and ramps of the step or its agent, its breaker's changes, its policy's changes
 * and the redrives of its dead letters, oldest first.
 */
export async function getStepEvents(db: Executor, names: StepName, range: TimeRange): Promise<StepEvent[]> {
  const from = range.from.toISOString();
  const to = range.to.toISOString();
  const inWindow = (column: string) =>
    sql.raw(`${column} >= '${from}'::timestamptz and ${column} < '${to}'::timestamptz`);
  const rows = await db.execute<{ at: Date | string; kind: StepEventKind; detail: string | null }>(sql`
    with covering as (
      select * from pauses
      where agent = ${names.agent} and (scope = 'agent' or (scope = 'step' and step = ${names.step}))
    ),
    events as (
      select paused_at as at, 'paused' as kind, paused_by as detail from covering where ${inWindow('paused_at')}
      union all
      select resumed_at, case when ramp_start_per_minute is null then 'resumed' else 'ramping' end, resumed_by
      from covering where resumed_at is not null and ${inWindow('resumed_at')}
      union all
      select ramp_ends_at, 'ramp_ended', null from covering
      where ramp_ends_at is not null and ${inWindow('ramp_ends_at')} and ramp_ends_at <= now()
      union all
      select at, 'breaker_' || event, null from breaker_events
      where target = ${`step:${names.agent}/${names.step}`} and ${inWindow('at')}
      union all
      select occurred_at, 'policy_changed', actor_id from audit_log
      where target_type = 'step' and target_id = ${`${names.agent}/${names.step}`}
        and action like 'step_policy.%' and ${inWindow('occurred_at')}
      union all
      select date_trunc('minute', redrives.requested_at), 'redriven', count(*)::text || ' redriven'
      from redrives join dead_letters on dead_letters.id = redrives.dead_letter_id
      where dead_letters.agent = ${names.agent} and dead_letters.step = ${names.step}
        and ${inWindow('redrives.requested_at')}
      group by 1
    )
    select * from events order by at limit ${EVENTS_SHOWN}`);
  return rows.map((row) => ({ at: new Date(row.at).toISOString(), kind: row.kind, detail: row.detail }));
}
