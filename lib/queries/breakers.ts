import 'server-only';
import { desc, eq, sql } from 'drizzle-orm';
import { type BreakerScope, type BreakerState, circuitBreakers } from '@holdfast/engine/db/schema';
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

type BreakerRow = typeof circuitBreakers.$inferSelect;

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

function toView(row: BreakerRow): BreakerView {
  return {
    target: row.target,
    scope: row.scope,
    agent: row.agent,
    step: row.step,
    downstream: row.downstream,
    state: row.state,
    openedAt: iso(row.openedAt),
    probeAt: iso(row.probeAt),
    failureShare: row.failureShare,
    volume: row.volume,
    changedAt: row.changedAt.toISOString(),
  };
}

/**
 * Breakers open or half-open now, then those that closed in the last day; the worst first. A downstream breaker is
 * one agent's (its `agent` set): the same downstream may be listed once per agent that calls it.
 */
export async function listBreakers(db: Executor, now: Date): Promise<BreakerView[]> {
  const rows = await db
    .select()
    .from(circuitBreakers)
    .where(
      sql`${circuitBreakers.state} <> 'closed'
        or ${circuitBreakers.changedAt} >= ${now.toISOString()}::timestamptz - make_interval(hours => ${RECENT_HOURS})`,
    )
    .orderBy(sql`${circuitBreakers.state} = 'closed'`, desc(circuitBreakers.changedAt))
    .limit(200);
  return rows.map(toView);
}

/** A step's breaker (undefined: it never opened) with its latest changes, newest first. */
export async function getStepBreaker(
  db: Executor,
  names: { agent: string; step: string },
): Promise<{ breaker: BreakerView | undefined; history: BreakerEventView[] }> {
  const target = stepBreakerKey(names.agent, names.step);
  const [rows, events] = await Promise.all([
    db.select().from(circuitBreakers).where(eq(circuitBreakers.target, target)),
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
