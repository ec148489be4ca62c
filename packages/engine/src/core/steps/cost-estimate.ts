import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';

/** What a step reserves when its caller gives no estimate and it has no history yet: $0.001. */
export const DEFAULT_COST_ESTIMATE_MICROS = 1_000;
/** How long a step's estimate is reused before it is read again. */
const ESTIMATE_TTL_MS = 5 * 60_000;
/** The history an estimate is read from: the step's latest finished attempts, no older than a week. */
const SAMPLE_SIZE = 1_000;

const cache = new WeakMap<Executor, Map<string, { micros: number; readAt: number }>>();

/**
 * What one attempt of a step is expected to cost: the 95th percentile of its
 * latest finished attempts' costs, so most attempts fit in what they reserve.
 * Read once every five minutes per step and process: begin must stay cheap.
 */
export async function estimateStepCost(db: Executor, agent: string, step: string, now = Date.now()): Promise<number> {
  const known = cache.get(db) ?? new Map<string, { micros: number; readAt: number }>();
  cache.set(db, known);
  const name = `${agent}/${step}`;
  const cached = known.get(name);
  if (cached && now - cached.readAt < ESTIMATE_TTL_MS) return cached.micros;

  const [row] = await db.execute<{ p95: string | null }>(sql`
    select percentile_disc(0.95) within group (order by cost_micros) as p95
    from (
      select cost_micros from attempts
      where agent = ${agent}::text and step = ${step}::text and outcome <> 'running'
        and started_at > now() - interval '7 days'
      order by started_at desc
      limit ${SAMPLE_SIZE}
    ) recent`);
  const micros = row?.p95 === null || row?.p95 === undefined ? DEFAULT_COST_ESTIMATE_MICROS : Number(row.p95);
  known.set(name, { micros, readAt: now });
  return micros;
}
