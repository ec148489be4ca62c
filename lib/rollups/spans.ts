import { sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';
import { resolveTimeWindow, type TimeRange, type TimeWindowName } from '../time-window';
import { planFigures } from './figures';
import { planSegments, rolledBounds } from './segments';

const HOUR_MS = 3_600_000;
/** The windows whose rolled part is stored; 1 h has none (it is all raw). */
const SPAN_WINDOWS: TimeWindowName[] = ['24h', '7d', '30d'];

/**
 * The whole-hour spans that the named windows, and the window before each
 * (the Overview's comparison), take from the rollups while the hour after
 * `edge` is open: planned exactly as a reader in that hour plans them, so a
 * reader finds its span by equality.
 */
export function spansFor(edge: Date): TimeRange[] {
  const inOpenHour = new Date(edge.getTime() + HOUR_MS / 2);
  return SPAN_WINDOWS.flatMap((name) => {
    const current = resolveTimeWindow(name, inOpenHour);
    const before = { from: new Date(2 * current.from.getTime() - current.to.getTime()), to: current.from };
    return [current, before]
      .map((window) => rolledBounds(planSegments([{ label: name, ...window }], edge)))
      .filter((span): span is TimeRange => span !== null);
  });
}

const sameSpan = (a: TimeRange, b: TimeRange) =>
  a.from.getTime() === b.from.getTime() && a.to.getTime() === b.to.getTime();

/**
 * Rewrites the stored spans for the rollups' new edge, in the rollup pass's
 * transaction (after its edge is written, so the spans are planned from the
 * rollups alone). Skipped when the spans held are already these and no hour
 * of them was rolled in this pass.
 */
export async function storeSpans(tx: Transaction, edge: Date, rolled: [number, number][]): Promise<void> {
  const wanted = spansFor(edge);
  const held = (
    await tx.execute<{ span_from: Date; span_to: Date }>(sql`select span_from, span_to from rollup_spans`)
  ).map((row) => ({ from: new Date(row.span_from), to: new Date(row.span_to) }));
  const unchanged =
    held.length === wanted.length &&
    wanted.every((span) => held.some((other) => sameSpan(span, other))) &&
    !rolled.some(([start, end]) => wanted.some((span) => start < span.to.getTime() && end > span.from.getTime()));
  if (unchanged) return;

  await tx.execute(sql`delete from rollup_spans`);
  await tx.execute(sql`delete from span_rollups`);
  await tx.execute(sql`delete from span_latency_rollups`);
  for (const span of wanted) {
    const from = sql`${span.from.toISOString()}::timestamptz`;
    const to = sql`${span.to.toISOString()}::timestamptz`;
    // finestBucket 'day': read the hourly and daily rollups themselves, never a stored span.
    const plan = await planFigures(tx, { windows: [{ label: 'span', ...span }], finestBucket: 'day' });
    await tx.execute(sql`
      insert into span_rollups (span_from, span_to, agent, step, error_class, attempts, retries, failures, executions,
        first_try_successes, cost_micros, retry_cost_micros)
      select ${from}, ${to}, agent, step, error_class, sum(attempts), sum(retries), sum(failures), sum(executions),
        sum(first_try_successes), sum(cost_micros), sum(retry_cost_micros)
      from ${plan.figures} as figures
      group by agent, step, error_class`);
    await tx.execute(sql`
      insert into span_latency_rollups (span_from, span_to, agent, step, buckets, counts)
      select ${from}, ${to}, agent, step, array_agg(latency_bucket order by latency_bucket), array_agg(attempts order by latency_bucket)
      from (
        select agent, step, entry.latency_bucket, sum(entry.attempts)::bigint as attempts
        from ${plan.latency} as latency, unnest(buckets, counts) as entry(latency_bucket, attempts)
        group by 1, 2, 3
      ) as per_bucket
      group by agent, step`);
    await tx.execute(sql`insert into rollup_spans (span_from, span_to) values (${from}, ${to})`);
  }
}
