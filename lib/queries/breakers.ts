import 'server-only';
import { sql } from 'drizzle-orm';
import type { BreakerScope, BreakerState } from '@holdfast/engine/db/schema';
import type { Executor } from '@holdfast/engine/db';
import { stepBreakerKey } from '@holdfast/engine/core';

/** Closed breakers stay listed this long after they closed, so a storm that just ended is still seen. */
const RECENT_HOURS = 24;
const HISTORY_LIMIT = 10;

export interface BreakerView {
  target: string;
  scope: BreakerScope;
  agent: string | null;
  step: string | null;
  downstream: string | null;
  state: BreakerState;
  openedAt: string | null;
  probeAt: string | null;
  failureShare: number | null;
  volume: number | null;
  changedAt: string;
}

export interface BreakerEventView {
  event: 'opened' | 'probing' | 'closed' | 'reopened';
  at: string;
  failureShare: number | null;
  volume: number | null;
}

interface BreakerRow extends Record<string, unknown> {
  target: string;
  scope: BreakerScope;
  agent: string | null;
  step: string | null;
  downstream: string | null;
  state: BreakerState;
  opened_at: string | null;
  probe_at: string | null;
  failure_share: number | null;
  volume: number | null;
  changed_at: string;
}

const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());

function toView(row: BreakerRow): BreakerView {
  return {
    target: row.target,
    scope: row.scope,
    agent: row.agent,
    step: row.step,
    downstream: row.downstream,
    state: row.state,
    openedAt: iso(row.opened_at),
    probeAt: iso(row.probe_at),
    failureShare: row.failure_share,
    volume: row.volume,
    changedAt: new Date(row.changed_at).toISOString(),
  };
}

/**
 * Breakers open or half-open now, then those that closed in the last day; the worst first. A downstream breaker is
 * one agent's (its `agent` set): the same downstream may be listed once per agent that calls it.
 */
export async function listBreakers(db: Executor, now: Date): Promise<BreakerView[]> {
  const rows = await db.execute<BreakerRow>(sql`
    select target, scope, agent, step, downstream, state, opened_at, probe_at, failure_share, volume, changed_at
    from circuit_breakers
    where state <> 'closed' or changed_at >= ${now.toISOString()}::timestamptz - make_interval(hours => ${RECENT_HOURS})
    order by (state = 'closed'), changed_at desc
    limit 200`);
  return rows.map(toView);
}

/** A step's breaker (undefined: it never opened) with its latest changes, newest first. */
export async function getStepBreaker(
  db: Executor,
  names: { agent: string; step: string },
): Promise<{ breaker: BreakerView | undefined; history: BreakerEventView[] }> {
  const target = stepBreakerKey(names.agent, names.step);
  const [rows, events] = await Promise.all([
    db.execute<BreakerRow>(sql`
      select target, scope, agent, step, downstream, state, opened_at, probe_at, failure_share, volume, changed_at
      from circuit_breakers where target = ${target}`),
    db.execute<{
      event: BreakerEventView['event'];
      at: string;
      failure_share: number | null;
      volume: number | null;
    }>(sql`
      select event, at, failure_share, volume from breaker_events where target = ${target}
      order by at desc, id desc limit ${HISTORY_LIMIT}`),
  ]);
  return {
    breaker: rows[0] ? toView(rows[0]) : undefined,
    history: events.map((event) => ({
      event: event.event,
      at: new Date(event.at).toISOString(),
      failureShare: event.failure_share,
      volume: event.volume,
    })),
  };
}
