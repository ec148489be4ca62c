import 'server-only';
import { type SQL, sql } from 'drizzle-orm';
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
  | 'redriven'
  | 'deployed';

export interface StepEvent {
  /** ISO. */
  at: string;
  kind: StepEventKind;
  /** Who, or what: the pause's author, the policy change's action, how many redrives, the version. */
  detail: string | null;
  /** What it happened to, on a page about more than one step (the Overview): `agent`, `agent/step`. */
  subject?: string;
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
      union all
      select at, kind, detail from (${deploys(sql`agent = ${names.agent}`, inWindow('first_seen_at'))}) deployed
    )
    select * from events order by at limit ${EVENTS_SHOWN}`);
  return rows.map((row) => ({ at: new Date(row.at).toISOString(), kind: row.kind, detail: row.detail }));
}

/**
 * A new version in an agent's span resources (agent_releases): a deploy-like event. An agent's first version is
 * its first spans, not a deploy, and is left out.
 */
function deploys(ofAgents: SQL, inWindow: SQL) {
  return sql`
    select first_seen_at as at, 'deployed' as kind, 'version ' || version as detail, agent as subject
    from agent_releases release
    where ${ofAgents} and ${inWindow} and version <> ''
      and exists (select 1 from agent_releases earlier
        where earlier.agent = release.agent and earlier.first_seen_at < release.first_seen_at)`;
}

/**
 * What happened across the fleet in the window, for the Overview's charts: pauses, resumes and ramps, breakers
 * opening and closing, and new agent versions, each naming what it happened to; oldest first.
 */
export async function getFleetEvents(db: Executor, range: TimeRange): Promise<StepEvent[]> {
  const from = range.from.toISOString();
  const to = range.to.toISOString();
  const inWindow = (column: string) =>
    sql.raw(`${column} >= '${from}'::timestamptz and ${column} < '${to}'::timestamptz`);
  const rows = await db.execute<{ at: Date | string; kind: StepEventKind; detail: string | null; subject: string }>(sql`
    with named as (select *, agent || '/' || coalesce(step, '*') as subject from pauses),
    events as (
      select paused_at as at, 'paused' as kind, paused_by as detail, subject from named where ${inWindow('paused_at')}
      union all
      select resumed_at, case when ramp_start_per_minute is null then 'resumed' else 'ramping' end, resumed_by, subject
      from named where resumed_at is not null and ${inWindow('resumed_at')}
      union all
      select at, 'breaker_' || event, null, regexp_replace(target, '^(step|downstream):', '') from breaker_events
      where event in ('opened', 'closed') and ${inWindow('at')}
      union all
      ${deploys(sql`true`, inWindow('first_seen_at'))}
    )
    select * from events order by at limit ${EVENTS_SHOWN}`);
  return rows.map((row) => ({
    at: new Date(row.at).toISOString(),
    kind: row.kind,
    detail: row.detail,
    subject: row.subject,
  }));
}
