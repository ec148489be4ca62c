import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { counterStripeSql } from '../kernel/counter-stripe';
import { arrayParam } from '../kernel/sql-arrays';
import type { Transaction } from '../../db/client';
import { BREAKER_FAILURE_CLASSES, type ErrorClass } from '../../db/schema';
import { settingsRowSql } from './breaker-settings';
import type { BreakerTarget } from './breaker-targets';

const SLICE_MS = 5_000;

/** Whether a finished attempt counts as its downstream failing (the other failures mean it answered). */
export function failsTheDownstream(
  outcome: 'succeeded' | 'failed',
  errorClass: ErrorClass | null | undefined,
): boolean {
  return outcome === 'failed' && (BREAKER_FAILURE_CLASSES as readonly string[]).includes(errorClass ?? '');
}

/**
 * Counts a finished attempt for its breakers, in the finish's transaction, and
 * moves them: a half-open breaker closes on an attempt that reached its
 * downstream and reopens (a new rest) on one that found it failing; a closed
 * breaker opens when, over its window since it last closed, the share of
 * failing attempts reaches the threshold with the minimum volume. Each change
 * is a guarded statement, so among concurrent finishes (and instances) one
 * moves the breaker and writes its one event.
 */
export async function recordBreakerOutcome(
  tx: Transaction,
  targets: BreakerTarget[],
  failing: boolean,
  now: Date,
): Promise<void> {
  await tx.execute(sql`
    with ${outcomeCountedCtes({
      names: arrayParam(
        targets.map((target) => target.target),
        'text',
      ),
      slice: sql`${breakerSliceOf(now)}`,
      at: sql`${now.toISOString()}`,
      failing,
    })}
    select 1`);
  if (failing) await openWhenTripped(tx, targets, now);
}

/** The start of the slice (of SLICE_MS) an outcome at `now` is counted in, as text for a statement. */
export function breakerSliceOf(now: Date): string {
  return new Date(Math.floor(now.getTime() / SLICE_MS) * SLICE_MS).toISOString();
}

/**
 * An outcome counted for breakers, as the CTEs of a statement (recordBreakerOutcome's, and a succeeded finish's
 * single statement, finish-fast.ts): +1 attempt (and +1 failure when failing) in each target's slice, and each
 * half-open target closed (on an attempt that reached its downstream) or reopened for a new rest (on one that
 * found it failing), with its event. A success is counted in its connection's stripe of the slice
 * (counter-stripe.ts), so concurrent successes never queue on one row. A failure is counted in stripe 0, one row
 * for every failure of the slice: failures decide whether a breaker trips, so each waits for the failures before
 * it to commit and its trip check (openWhenTripped) sees them all, as concurrent failures must to open it once. `names` is a text[] of the targets' keys; `slice` and `at` are timestamps.
 */
export function outcomeCountedCtes(parts: {
  names: SQLWrapper;
  slice: SQLWrapper;
  at: SQLWrapper;
  failing: boolean;
}): SQL {
  const { names, slice, failing } = parts;
  const at = sql`${parts.at}::timestamptz`;
  return sql`settings as ${sql.raw(settingsRowSql)},
    counted as (
      insert into breaker_slices (target, slice_start, stripe, attempts, failures)
      select name, ${slice}::timestamptz, ${failing ? sql.raw('0') : counterStripeSql}, 1, ${sql.raw(failing ? '1' : '0')}
      from unnest(${names}::text[]) as name
      on conflict (target, slice_start, stripe) do update
        set attempts = breaker_slices.attempts + 1, failures = breaker_slices.failures + excluded.failures
    ),
    settled as (
      update circuit_breakers b set
        state = ${sql.raw(failing ? "'open'" : "'closed'")},
        probe_at = ${failing ? sql`${at} + make_interval(secs => s.cool_down_seconds)` : sql`null`},
        opened_at = ${failing ? at : sql`b.opened_at`},
        probes_granted = 0,
        changed_at = ${at}
      from settings s
      where b.target = any(${names}::text[]) and b.state = 'half_open'
      returning b.target
    ),
    half_open_ended as (
      insert into breaker_events (target, event, at)
      select target, ${sql.raw(failing ? "'reopened'" : "'closed'")}, ${at} from settled
    )`;
}

async function openWhenTripped(tx: Transaction, targets: BreakerTarget[], now: Date): Promise<void> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const column = (pick: (target: BreakerTarget) => string | null) => targets.map(pick);
  await tx.execute(sql`
    with settings as ${sql.raw(settingsRowSql)},
    candidates as (
      select * from unnest(
        ${arrayParam(
          column((target) => target.target),
          'text',
        )}, ${arrayParam(
          column((target) => target.scope),
          'text',
        )},
        ${arrayParam(
          column((target) => target.agent),
          'text',
        )}, ${arrayParam(
          column((target) => target.step),
          'text',
        )},
        ${arrayParam(
          column((target) => target.downstream),
          'text',
        )}
      ) as c(target, scope, agent, step, downstream)
    ),
    sums as (
      -- Counted since the breaker last closed: the storm that opened it does not open it again.
      select c.target, sum(w.attempts)::int as volume, sum(w.failures)::int as failures
      from candidates c
      join settings s on true
      left join circuit_breakers b on b.target = c.target
      join breaker_slices w on w.target = c.target
        and w.slice_start > ${at} - make_interval(secs => s.window_seconds)
        and (b.target is null or w.slice_start >= b.changed_at)
      where b.target is null or b.state = 'closed'
      group by c.target
    ),
    tripped as (
      select c.*, sums.failures::float8 / sums.volume as share, sums.volume, s.cool_down_seconds
      from sums join candidates c using (target) join settings s on true
      where sums.volume >= s.minimum_volume and sums.failures::float8 / sums.volume >= s.failure_share
    ),
    opened as (
      insert into circuit_breakers
        (target, scope, agent, step, downstream, state, opened_at, probe_at, probes_granted, failure_share, volume, changed_at)
      select target, scope, agent, step, downstream, 'open', ${at}, ${at} + make_interval(secs => cool_down_seconds), 0,
        share, volume, ${at}
      from tripped
      on conflict (target) do update set state = 'open', opened_at = excluded.opened_at, probe_at = excluded.probe_at,
        probes_granted = 0, failure_share = excluded.failure_share, volume = excluded.volume, changed_at = excluded.changed_at
      where circuit_breakers.state = 'closed'
      returning target, failure_share, volume
    )
    insert into breaker_events (target, event, at, failure_share, volume)
    select target, 'opened', ${at}, failure_share, volume from opened`);
}
