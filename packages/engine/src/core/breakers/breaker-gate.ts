import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client';
import type { BreakerState } from '../../db/schema';
import { settingsRowSql } from './breaker-settings';
import { breakerTargetLabel } from './breaker-targets';

/**
 * The circuit-breaker gate a begin passes (begin-step.ts). An open breaker
 * turns begins away (`CIRCUIT_OPEN`) until its next probe; then it is
 * half-open, and lets a few probes through, each taken in the begin's own
 * transaction (a begin refused later gives its probe back). A probe's finish
 * closes or reopens it (breaker-outcomes.ts).
 */

export interface BreakerFacts {
  /** The breaker's key (`step:<agent>/<step>`, `downstream:<agent>/<name>`). */
  key: string;
  /** The same, as people read it. */
  target: string;
  state: Exclude<BreakerState, 'closed'>;
  openedAt: string | null;
  /** When the next probe may run (open), or when a silent probe round is given up (half-open). */
  probeAt: string;
  failureShare: number | null;
  volume: number | null;
}

export type BreakerGate =
  | { kind: 'closed' }
  | { kind: 'open'; breaker: BreakerFacts; retryAfterMs: number }
  | { kind: 'probing'; breakers: BreakerFacts[] };

/** A breaker as breakersNotClosedSql reads it: times as text (a raw statement's, or JSON's). */
export interface BreakerRow extends Record<string, unknown> {
  target: string;
  state: Exclude<BreakerState, 'closed'>;
  opened_at: string | null;
  probe_at: string;
  failure_share: number | null;
  volume: number | null;
}

const MIN_WAIT_MS = 1_000;

function factsOf(row: BreakerRow): BreakerFacts {
  return {
    key: row.target,
    target: breakerTargetLabel(row.target),
    state: row.state,
    openedAt: row.opened_at === null ? null : new Date(row.opened_at).toISOString(),
    probeAt: new Date(row.probe_at).toISOString(),
    failureShare: row.failure_share,
    volume: row.volume,
  };
}

/** The breakers of a begin's targets (a text[] of their keys) that are not closed, as a subquery (begin-reads.ts). */
export function breakersNotClosedSql(targets: SQLWrapper): SQL {
  return sql`
    select target, state, opened_at, probe_at, failure_share, volume
    from circuit_breakers where target = any(${targets}::text[]) and state <> 'closed'`;
}

/** The gate of a begin's breakers that are not closed (breakersNotClosedSql's rows): one open and resting turns it away. */
export function breakerGateOf(rows: readonly BreakerRow[], now: Date): BreakerGate {
  if (rows.length === 0) return { kind: 'closed' };
  const resting = rows
    .filter((row) => row.state === 'open' && new Date(row.probe_at) > now)
    .sort((a, b) => new Date(b.probe_at).getTime() - new Date(a.probe_at).getTime());
  if (resting[0]) {
    const breaker = factsOf(resting[0]);
    return {
      kind: 'open',
      breaker,
      retryAfterMs: Math.max(MIN_WAIT_MS, new Date(breaker.probeAt).getTime() - now.getTime()),
    };
  }
  return { kind: 'probing', breakers: rows.map(factsOf) };
}

/**
 * Takes a probe from each breaker, in the begin's transaction: an open breaker
 * whose rest is over turns half-open and starts a round of probes; a half-open
 * one grants up to its number of probes per round, and starts a new round when
 * the last went silent (its probes never finished). Returns the first breaker
 * that had none left, or undefined when every one granted a probe.
 */
export async function takeProbes(
  tx: Transaction,
  breakers: BreakerFacts[],
  now: Date,
): Promise<{ breaker: BreakerFacts; retryAfterMs: number } | undefined> {
  const at = sql`${now.toISOString()}::timestamptz`;
  for (const breaker of breakers) {
    const [granted] = await tx.execute<{ granted: number }>(sql`
      with settings as ${sql.raw(settingsRowSql)},
      granted as (
        update circuit_breakers b set
          state = 'half_open',
          probes_granted = case when b.state = 'open' or b.probe_at <= ${at} then 1 else b.probes_granted + 1 end,
          probe_at = case when b.state = 'open' or b.probe_at <= ${at}
            then ${at} + make_interval(secs => s.cool_down_seconds) else b.probe_at end,
          changed_at = ${at}
        from settings s
        where b.target = ${breaker.key}::text
          and ((b.state = 'open' and b.probe_at <= ${at})
            or (b.state = 'half_open' and (b.probes_granted < s.probes or b.probe_at <= ${at})))
        returning b.target, b.probes_granted
      ),
      logged as (
        insert into breaker_events (target, event, at)
        select target, 'probing', ${at} from granted where probes_granted = 1
      )
      select count(*)::int as granted from granted`);
    if (!granted || granted.granted === 0) {
      return { breaker, retryAfterMs: Math.max(MIN_WAIT_MS, new Date(breaker.probeAt).getTime() - now.getTime()) };
    }
  }
  return undefined;
}
