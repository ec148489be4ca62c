import { type SQL, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/client';
import { resolveTimeWindow, type TimeRange, type TimeWindowName } from '../time-window';
import { figureList, signedFigures, summedFigures } from './figure-sql';
import { planFigures } from './figures';
import { HOURLY_CHANGES, HOURLY_LATENCY_CHANGES } from './hourly-changes';
import { passStamp } from './pass-stamp';
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
      .map((window) => rolledBounds(planSegments([{ label: name, ...window }], { rolledTo: edge, fineRolledTo: null })))
      .filter((span): span is TimeRange => span !== null);
  });
}

const sameSpan = (a: TimeRange, b: TimeRange) =>
  a.from.getTime() === b.from.getTime() && a.to.getTime() === b.to.getTime();

/**
 * The held span a wanted one can be moved from: of the same length, starting
 * at or before it, by less than half its length (further, adding and
 * subtracting the hours in between costs more than summing it afresh).
 */
export function spanToMove(wanted: TimeRange, held: TimeRange[]): TimeRange | undefined {
  const length = wanted.to.getTime() - wanted.from.getTime();
  const shift = (span: TimeRange) => wanted.from.getTime() - span.from.getTime();
  return held
    .filter(
      (span) => span.to.getTime() - span.from.getTime() === length && shift(span) >= 0 && shift(span) < length / 2,
    )
    .sort((a, b) => shift(a) - shift(b))[0];
}

/**
 * Rewrites the stored spans for the rollups' new edge, in the rollup pass's
 * transaction (after its edge is written, so the spans are planned from the
 * rollups alone). Skipped when the spans held are already these and no hour
 * of them was rolled in this pass.
 *
 * The previous pass's spans are kept until the next pass: a reader reads the
 * list of spans with the edges, then their rows in a second statement, and
 * a pass that commits in between must not take the rows away. Older spans
 * are dropped. A kept span is at most one pass behind, the freshness every
 * rolled figure has.
 *
 * Each pass moves the spans by the hours the edge moved (usually one), so a
 * span is computed from the one held before it rather than summed afresh:
 *
 *   new span = held span
 *            + what this pass changed in the held span's hours (late rows)
 *            + the hours the new span adds at its end
 *            - the hours it drops at its start
 *
 * "What this pass changed" is the hourly rollups' change, new rows minus
 * replaced ones, noted by the pass while it rolled (lib/rollups/hourly-changes.ts;
 * `changesNoted`). Without them (the first pass, after a restore) or without
 * a held span to move, the span is summed afresh from the hourly and daily
 * rollups. Both ways give the same rows, as the tests check.
 */
export async function storeSpans(
  tx: Transaction,
  edge: Date,
  rolled: [number, number][],
  options: { changesNoted: boolean },
): Promise<void> {
  await deleteSpans(tx, sql`stored_at < (select max(stored_at) from rollup_spans)`);
  const wanted = spansFor(edge);
  const held = await readHeldSpans(tx);
  const unchanged =
    held.length === wanted.length &&
    wanted.every((span) => held.some((other) => sameSpan(span, other))) &&
    !rolled.some(([start, end]) => wanted.some((span) => start < span.to.getTime() && end > span.from.getTime()));
  if (unchanged) return;

  // The new spans are summed beside the old (they are read while the new are written), then swapped in.
  await tx.execute(sql`
    create temporary table next_span_rollups on commit drop as
    select span_from, span_to, agent, step, error_class, ${figureList()}
    from span_rollups with no data`);
  await tx.execute(sql`
    create temporary table next_span_latency (span_from timestamptz, span_to timestamptz, agent text, step text,
      latency_bucket smallint, attempts bigint) on commit drop`);
  for (const span of wanted) {
    const base = options.changesNoted ? spanToMove(span, held) : undefined;
    await sumSpan(tx, span, base);
  }

  // The previous pass's spans stay beside the new, except where the new replace them (the same hours).
  const wantedList = sql.join(
    wanted.map((span) => sql`(${bound(span.from)}, ${bound(span.to)})`),
    sql`, `,
  );
  if (wanted.length > 0) await deleteSpans(tx, sql`(span_from, span_to) in (${wantedList})`);
  // A step and class whose attempts all left the span sums to zero everywhere: it has no row.
  await tx.execute(sql`insert into span_rollups select * from next_span_rollups where attempts <> 0`);
  await tx.execute(sql`
    insert into span_latency_rollups (span_from, span_to, agent, step, buckets, counts)
    select span_from, span_to, agent, step, array_agg(latency_bucket order by latency_bucket),
      array_agg(attempts order by latency_bucket)
    from next_span_latency
    where attempts <> 0
    group by span_from, span_to, agent, step`);
  if (wanted.length > 0) {
    await tx.execute(sql`
      insert into rollup_spans (span_from, span_to, stored_at)
      select span_from, span_to, ${passStamp('rollup_spans')} from (values ${wantedList}) as spans(span_from, span_to)`);
  }
}

/** The spans the last pass stored: the ones this pass moves (the previous pass's are one pass behind). */
export async function readHeldSpans(tx: Transaction): Promise<TimeRange[]> {
  const rows = await tx.execute<{ span_from: Date; span_to: Date }>(sql`
    select span_from, span_to from rollup_spans where stored_at = (select max(stored_at) from rollup_spans)`);
  return rows.map((row) => ({ from: new Date(row.span_from), to: new Date(row.span_to) }));
}

/** Deletes the spans `which` picks out of rollup_spans, with their rows. */
export async function deleteSpans(db: Executor, which: SQL): Promise<void> {
  await db.execute(sql`
    with dropped as (delete from rollup_spans where ${which} returning span_from, span_to),
      figures as (delete from span_rollups using dropped
        where span_rollups.span_from = dropped.span_from and span_rollups.span_to = dropped.span_to)
    delete from span_latency_rollups using dropped
    where span_latency_rollups.span_from = dropped.span_from and span_latency_rollups.span_to = dropped.span_to`);
}

const bound = (moment: Date) => sql`${moment.toISOString()}::timestamptz`;

/**
 * Sums one span into the next_ tables: afresh from the rollups, or moved from
 * `base` (a held span) by the hours between them and this pass's changes.
 */
async function sumSpan(tx: Transaction, span: TimeRange, base: TimeRange | undefined): Promise<void> {
  const figureParts: SQL[] = [];
  const latencyParts: SQL[] = [];
  // [from, to) from the hourly and daily rollups themselves (finestBucket 'day': never a stored span), signed.
  const addRolled = async (from: Date, to: Date, sign: 1 | -1) => {
    if (from >= to) return;
    const plan = await planFigures(tx, { windows: [{ label: 'span', from, to }], finestBucket: 'day' });
    figureParts.push(sql`select agent, step, error_class, ${signedFigures(sign)} from ${plan.figures} as figures`);
    latencyParts.push(sql`
      select agent, step, entry.latency_bucket, ${sign === 1 ? sql`` : sql`-`}entry.attempts
      from ${plan.latency} as latency, unnest(buckets, counts) as entry(latency_bucket, attempts)`);
  };

  if (base) {
    const heldFrom = bound(base.from);
    const heldTo = bound(base.to);
    figureParts.push(sql`
      select agent, step, error_class, ${figureList()}
      from span_rollups where span_from = ${heldFrom} and span_to = ${heldTo}`);
    figureParts.push(sql`
      select agent, step, error_class, ${figureList()}
      from ${HOURLY_CHANGES} where bucket_start >= ${heldFrom} and bucket_start < ${heldTo}`);
    latencyParts.push(sql`
      select agent, step, entry.latency_bucket, entry.attempts
      from span_latency_rollups, unnest(buckets, counts) as entry(latency_bucket, attempts)
      where span_from = ${heldFrom} and span_to = ${heldTo}`);
    latencyParts.push(sql`
      select agent, step, latency_bucket, attempts
      from ${HOURLY_LATENCY_CHANGES} where bucket_start >= ${heldFrom} and bucket_start < ${heldTo}`);
    await addRolled(base.from, span.from, -1);
    await addRolled(base.to, span.to, 1);
  } else {
    await addRolled(span.from, span.to, 1);
  }

  const from = bound(span.from);
  const to = bound(span.to);
  await tx.execute(sql`
    insert into next_span_rollups
    select ${from}, ${to}, agent, step, error_class, ${summedFigures()}
    from (${sql.join(figureParts, sql` union all `)}) as parts
    group by agent, step, error_class`);
  await tx.execute(sql`
    insert into next_span_latency
    select ${from}, ${to}, agent, step, latency_bucket, sum(attempts)
    from (${sql.join(latencyParts, sql` union all `)}) as parts(agent, step, latency_bucket, attempts)
    group by agent, step, latency_bucket`);
}
