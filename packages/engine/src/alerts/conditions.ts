import { sql } from 'drizzle-orm';
import { cutToLength } from '@holdfast/protocol/validation';
import type { Executor } from '../db/client';
import type { AlertKind } from '@holdfast/protocol/enums';
import type { Thresholds } from './rule-input';
import { findStepAnomalies } from '../rollups/step-anomalies';
import { readStepOwners } from '../core/owners/read-owners';
import { currentBudgetSpend } from '../core/budgets/budget-stripes';
import { type BudgetPeriod, periodWords } from '@holdfast/protocol/inputs/spend-budget-input';

/** One condition holding now: what an alert instance is made of. */
export interface AlertCondition {
  /** Stable across passes while the condition holds (`hold:42`, `queue:emails`): it names the instance. */
  identity: string;
  title: string;
  detail: string;
  /** The console path that explains it. */
  link: string;
  /** The owner team it is routed to (holds owned by `team:<name>`), or null for every channel without a team. */
  team: string | null;
  /**
   * The step it is about, for a condition of one step (or `*`: of one agent's steps): routed to the team that owns
   * it (routeToOwners) when it names no team itself.
   */
  about?: { agent: string; step: string };
}

/** The job name alert evaluation leases under (and that sweep_failing leaves out: it cannot report its own failure). */
export const ALERT_EVALUATION_JOB = 'alerts.evaluate';

export const MAX_ALERT_TITLE = 200;
/** Details are cut, never refused: a Slack section holds 3,000 characters, and a pager shows far fewer. */
export const MAX_ALERT_DETAIL = 1_000;

export type ConditionReader<Kind extends AlertKind> = (
  db: Executor,
  thresholds: Thresholds<Kind>,
  now: Date,
) => Promise<AlertCondition[]>;

const at = (now: Date) => sql`${now.toISOString()}::timestamptz`;
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const stepPath = (agent: string, step: string) => `/steps/${encodeURIComponent(agent)}/${encodeURIComponent(step)}`;
const minutesBetween = (from: Date, to: Date) => Math.max(0, Math.floor((to.getTime() - from.getTime()) / 60_000));

/** The team a hold owner names (`team:payments` → payments); a person owns for no team. */
export function teamOfOwner(owner: string): string | null {
  return owner.startsWith('team:') ? owner.slice('team:'.length) : null;
}

function describeWhere(key: { step: string | null; task_id: string | null }): string {
  const parts = [key.step && `step ${key.step}`, key.task_id && `task ${key.task_id}`].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/**
 * Routes each condition about a step to the team that owns the step (its own owner, its agent's, or what its
 * agent declares: packages/engine/src/core/owners/read-owners.ts), so that its alert reaches that team's channels
 * (and every channel without a team). A step owned by a person, or by nobody, stays for every channel.
 */
export async function routeToOwners(db: Executor, conditions: AlertCondition[]): Promise<AlertCondition[]> {
  const about = conditions.flatMap((each) => (each.team === null && each.about ? [each.about] : []));
  if (about.length === 0) return conditions;
  const owners = await readStepOwners(db, about);
  return conditions.map((each) => {
    if (each.team !== null || !each.about) return each;
    const owner = owners.get(`${each.about.agent}/${each.about.step}`)?.owner;
    return owner ? { ...each, team: teamOfOwner(owner) } : each;
  });
}

function condition(fields: AlertCondition): AlertCondition {
  return {
    ...fields,
    title: cutToLength(fields.title, MAX_ALERT_TITLE),
    detail: cutToLength(fields.detail, MAX_ALERT_DETAIL),
  };
}

/** What each kind's condition is, read from the database as of `now`. */
export const conditionReaders: { [Kind in AlertKind]: ConditionReader<Kind> } = {
  retry_share_anomaly: async (db, _thresholds, now) =>
    (await findStepAnomalies(db, now)).map((anomaly) =>
      condition({
        identity: `step:${anomaly.agent}/${anomaly.step}`,
        title: `Retry share anomaly on ${anomaly.agent}/${anomaly.step}`,
        detail:
          `Retries took ${percent(anomaly.recentShare)} of this step's spend over the last 24 hours, ` +
          `against ${percent(anomaly.baseline)} on a usual day before (alerting above ${percent(anomaly.threshold)}).`,
        link: stepPath(anomaly.agent, anomaly.step),
        team: null,
        about: { agent: anomaly.agent, step: anomaly.step },
      }),
    ),

  hold_opened: async (db) => {
    const rows = await db.execute<{
      id: string;
      item_type: string;
      item_id: string;
      reason: string;
      owner: string;
      detail: string;
    }>(sql`select id, item_type, item_id, reason, owner, detail from holds where status = 'open' order by id`);
    return rows.map((hold) =>
      condition({
        identity: `hold:${hold.id}`,
        title: `Hold opened for ${hold.owner}: ${hold.reason} on ${hold.item_type} ${hold.item_id}`,
        detail: hold.detail,
        link: `/holds?${new URLSearchParams({ owner: hold.owner })}`,
        team: teamOfOwner(hold.owner),
      }),
    );
  },

  dead_letters_waiting: async (db, { maxWaiting, maxAgeMinutes }, now) => {
    const rows = await db.execute<{ queue: string; waiting: number; oldest: string }>(sql`
      select queue, count(*)::int as waiting, min(created_at)::text as oldest
      from dead_letters where status = 'pending'
      group by queue
      having count(*) > ${maxWaiting} or min(created_at) <= ${at(now)} - make_interval(mins => ${maxAgeMinutes})
      order by queue`);
    return rows.map((row) =>
      condition({
        identity: `queue:${row.queue}`,
        title: `Dead letters waiting on queue ${row.queue}`,
        detail:
          `${row.waiting} dead letter(s) wait on ${row.queue}, the oldest for ${minutesBetween(new Date(row.oldest), now)} minute(s) ` +
          `(alerting above ${maxWaiting} waiting or ${maxAgeMinutes} minutes). Redrive what is fixed, discard the rest.`,
        link: `/dead-letters?${new URLSearchParams({ queue: row.queue })}`,
        team: null,
      }),
    );
  },

  // One instance per budget and period, for the highest warning threshold its use has reached: crossing the next
  // resolves it and fires that one, so each threshold alerts once a period; the period's turn resolves it.
  spend_budget: async (db, _thresholds, now) => {
    const rows = await db.execute<{
      name: string;
      scope: string;
      scope_value: string;
      period: BudgetPeriod;
      reset_every_hours: number | null;
      limit_micros: string;
      period_start: string;
      used: string;
      refusals: number;
      reached: number | null;
    }>(sql`
      select b.name, b.scope, b.scope_value, b.period, b.reset_every_hours, b.limit_micros, u.period_start::text as period_start,
        u.spent_micros + u.reserved_micros as used, u.refusals,
        (select max(p) from unnest(b.warn_percents) as p
          where (u.spent_micros + u.reserved_micros) * 100 >= b.limit_micros * p) as reached
      from spend_budgets b
      join ${currentBudgetSpend(now)} u on u.budget_id = b.id
      order by b.name`);
    return rows
      .filter((row) => row.reached !== null)
      .map((row) => {
        const limit = Number(row.limit_micros);
        const what = row.scope === 'fleet' ? 'the whole fleet' : `${row.scope} ${row.scope_value}`;
        const period = periodWords({ period: row.period, resetEveryHours: row.reset_every_hours });
        const rolling = row.period === 'rolling_hour';
        return condition({
          // A rolling hour's window moves every five minutes: its instance lasts while the window stays above.
          identity: `spend_budget:${row.name}:${rolling ? 'rolling' : row.period_start}:${row.reached}`,
          title: `Spend budget ${row.name} at ${row.reached}% of its $${(limit / 1e6).toFixed(2)} ${period}`,
          detail:
            `${what} has used $${(Number(row.used) / 1e6).toFixed(4)} (spent and reserved) of $${(limit / 1e6).toFixed(2)} ` +
            (rolling ? 'in the last hour' : `in the period that began ${row.period_start}`) +
            (row.refusals > 0 ? `; ${row.refusals} begins were refused` : '') +
            '. Begins past the limit wait for the period to turn, or stop, as the budget says.',
          link: '/settings/budgets',
          team: row.scope === 'owner' ? teamOfOwner(row.scope_value) : null,
          about: row.scope === 'agent' ? { agent: row.scope_value, step: '*' } : undefined,
        });
      });
  },

  // One instance per breaker while it is not closed: it fires when the breaker opens and resolves when it closes.
  circuit_open: async (db, _thresholds, now) => {
    const rows = await db.execute<{
      target: string;
      scope: 'step' | 'downstream';
      agent: string | null;
      step: string | null;
      downstream: string | null;
      state: string;
      opened_at: string | null;
      probe_at: string;
      failure_share: number | null;
      volume: number | null;
    }>(sql`
      select target, scope, agent, step, downstream, state, opened_at::text as opened_at, probe_at::text as probe_at,
        failure_share, volume
      from circuit_breakers where state <> 'closed' order by target`);
    return rows.map((breaker) => {
      // A downstream breaker is one agent's (packages/engine/src/core/breakers/breaker-targets.ts): its title names the agent.
      const what =
        breaker.scope === 'step'
          ? `step ${breaker.agent}/${breaker.step}`
          : `downstream ${breaker.downstream} (agent ${breaker.agent})`;
      const since = breaker.opened_at ? minutesBetween(new Date(breaker.opened_at), now) : 0;
      return condition({
        identity: `breaker:${breaker.target}`,
        title: `Circuit open on ${what} for ${since} minutes`,
        detail:
          (breaker.failure_share !== null && breaker.volume !== null
            ? `${percent(breaker.failure_share)} of ${breaker.volume} attempts failed as the downstream failing when it opened. `
            : '') +
          `Begins wait (CIRCUIT_OPEN); ${breaker.state === 'half_open' ? 'probes are running now' : `the next probe runs at ${new Date(breaker.probe_at).toISOString()}`}. ` +
          'It closes by itself when a probe gets through.',
        link:
          breaker.scope === 'step' && breaker.agent && breaker.step ? stepPath(breaker.agent, breaker.step) : '/pauses',
        team: null,
        // A downstream breaker is one agent's: its owner is the agent's.
        about: breaker.agent
          ? { agent: breaker.agent, step: breaker.scope === 'step' && breaker.step ? breaker.step : '*' }
          : undefined,
      });
    });
  },

  // Stale as the Locks page and the release sweep mean it: held (not released) and past its time to live.
  stale_lock: async (db, { unreleasableMinutes }, now) => {
    const rows = await db.execute<{
      slot: string;
      holder_run_key: string;
      expires_at: string;
      refused_guards: string[] | null;
    }>(sql`
      select slot, holder_run_key, expires_at::text as expires_at, release_refused_guards as refused_guards
      from slot_locks
      where released_at is null and expires_at <= ${at(now)} - make_interval(mins => ${unreleasableMinutes})
      order by slot`);
    return rows.map((lock) =>
      condition({
        identity: `lock:${lock.slot}`,
        title: `Lock on ${lock.slot} stale for ${minutesBetween(new Date(lock.expires_at), now)} minutes`,
        detail:
          `Run ${lock.holder_run_key} still holds ${lock.slot}, past its time to live since ${new Date(lock.expires_at).toISOString()}` +
          (lock.refused_guards?.length
            ? `; the sweeper will not release it because these guards fail: ${lock.refused_guards.join(', ')}.`
            : '.') +
          ' Check the run and the evidence, then release it on the Locks page or leave it held.',
        link: '/locks',
        team: null,
      }),
    );
  },

  // Uncertain as the Overview counts it: a claim on a downstream that cannot deduplicate ran out before completion.
  uncertain_key: async (db, _thresholds, now) => {
    const rows = await db.execute<{
      key: string;
      task_id: string | null;
      step: string | null;
      locked_until: string;
    }>(sql`
      select key, task_id, step, locked_until::text as locked_until
      from idempotency_keys
      where status = 'in_progress' and locked_until <= ${at(now)} and not downstream_idempotent
      order by key`);
    return rows.map((key) =>
      condition({
        identity: `key:${key.key}`,
        title: `Uncertain outcome for key ${key.key}`,
        detail:
          `The claim on ${key.key}${describeWhere(key)} ran out at ${new Date(key.locked_until).toISOString()} ` +
          'without completing, and its downstream cannot deduplicate: ' +
          'the side effect may or may not have happened. Check the downstream before anything repeats it.',
        link: `/keys?${new URLSearchParams({ show: key.key })}`,
        team: null,
      }),
    );
  },

  // Refusals in the minutes that started within the last five (the current one included), averaged over five.
  budget_refusals: async (db, { perMinute }, now) => {
    const rows = await db.execute<{ agent: string; step: string; refusals: string; reasons: string[] }>(sql`
      select agent, step, sum(refusals)::bigint as refusals, array_agg(distinct reason order by reason) as reasons
      from budget_refusal_minutes
      where minute > ${at(now)} - interval '5 minutes' and minute <= ${at(now)}
      group by agent, step
      having sum(refusals) > ${perMinute * 5}
      order by agent, step`);
    return rows.map((row) =>
      condition({
        identity: `step:${row.agent}/${row.step}`,
        title: `Budget refusals on ${row.agent}/${row.step}`,
        detail:
          `${Number(row.refusals)} attempt(s) of ${row.agent}/${row.step} were refused for want of budget in the last 5 minutes ` +
          `(${(Number(row.refusals) / 5).toFixed(1)} a minute; alerting above ${perMinute}); reasons: ${row.reasons.join(', ')}.`,
        link: stepPath(row.agent, row.step),
        team: null,
        about: { agent: row.agent, step: row.step },
      }),
    );
  },

  sweep_failing: async (db, { staleMinutes }, now) => {
    // A job's period is read from its buckets (the smallest gap between its latest ones), so an
    // hourly sweep is not called failing 15 minutes into its hour; a job seen in one bucket only
    // is given an hour, the longest period any sweep has.
    const rows = await db.execute<{ job: string; last_completed: string; period_minutes: number }>(sql`
      with recent as (
        select job, completed_at,
          case when bucket ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' then bucket::timestamptz end as bucket,
          row_number() over (partition by job order by acquired_at desc) as position
        from leases
      ), gaps as (
        select job,
          extract(epoch from (bucket - lead(bucket) over (partition by job order by bucket desc))) / 60 as gap_minutes
        from recent where position <= 10
      )
      select recent.job,
        max(recent.completed_at)::text as last_completed,
        coalesce((select min(gap_minutes) from gaps where gaps.job = recent.job and gap_minutes > 0), 60)::int as period_minutes
      from recent
      where recent.job <> ${ALERT_EVALUATION_JOB}
      group by recent.job
      having max(recent.completed_at) is not null
      order by recent.job`);
    return rows
      .filter(
        (row) => new Date(row.last_completed).getTime() <= now.getTime() - (staleMinutes + row.period_minutes) * 60_000,
      )
      .map((row) =>
        condition({
          identity: `sweep:${row.job}`,
          title: `Sweep ${row.job} has not finished a pass for ${minutesBetween(new Date(row.last_completed), now)} minutes`,
          detail:
            `The last finished pass of ${row.job} was at ${new Date(row.last_completed).toISOString()}; it runs every ` +
            `${row.period_minutes} minute(s) (alerting ${staleMinutes} minutes after a pass is due). ` +
            'Check that a sweeper runs (npm start or npm run sweep from cron) and its log for the error.',
          link: '/',
          team: null,
        }),
      );
  },
};
