import { type SQL, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../db/client';
import { resolveTimeWindow, type TimeRange, type TimeWindowName } from '@holdfast/protocol/time-window';
import { figureList, signedFigures, summedFigures } from './figure-sql';
import { planFigures } from './figures';
import { HOURLY_CHANGES, HOURLY_LATENCY_CHANGES } from './hourly-changes';
import { passStamp } from './pass-stamp';
import { planSegments, rolledBounds, type StoredSpan } from './segments';

const HOUR_MS = 3_600_000;
/** The windows whose rolled part is stored; 1 h has none (it is all raw). */
const SPAN_WINDOWS: TimeWindowName[] = ['24h', '7d', '30d'];

/**
 * The whole-hour spans that the named windows, and the window before each
 * (the Overview's comparison), take from the rollups while the hour after
 * `edge` is open: planned exactly as a reader in that hour plans them, so a
 * reader finds its span by equality. Only the named windows' own spans keep
 * latency: nothing compares latency with the window before.
 */
export function spansFor(edge: Date): StoredSpan[] {
  const inOpenHour = new Date(edge.getTime() + HOUR_MS / 2);
  return SPAN_WINDOWS.flatMap((name) => {
    const current = resolveTimeWindow(name, inOpenHour);
    const before = { from: new Date(2 * current.from.getTime() - current.to.getTime()), to: current.from };
    return [
      { window: current, latency: true },
      { window: before, latency: false },
    ].flatMap(({ window, latency }) => {
      const span = rolledBounds(planSegments([{ label: name, ...window }], { rolledTo: edge, fineRolledTo: null }));
      return span ? [{ ...span, latency }] : [];
    });
  });
}

const sameSpan = (a: TimeRange, b: TimeRange) =>
  a.from.getTime() === b.from.getTime() && a.to.getTime() === b.to.getTime();

/**
 * The held span a wanted one can be moved from: of the same length, starting
 * at or before it, by less than half its length (further, adding and
 * subtracting the hours in between costs more than summing it afresh).
 */
export function spanToMove<Span extends TimeRange>(wanted: TimeRange, held: Span[]): Span | undefined {
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
 * replaced ones, noted by the pass while it rolled (packages/engine/src/rollups/hourly-changes.ts;
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
  const isHeld = (span: TimeRange) => held.some((other) => sameSpan(span, other));
  const unchanged =
    held.length === wanted.length &&
    wanted.every(isHeld) &&
    !rolled.some(([start, end]) => wanted.some((span) => start < span.to.getTime() && end > span.from.getTime()));
  if (unchanged) return;

  // A span of new hours (the usual case: the edge moved) is written in place. One whose hours are held
  // already (late rows re-rolled its hours) is summed beside the held one, which it may be moved from, and
  // swapped in after.
  const replaced = wanted.filter(isHeld);
  if (replaced.length > 0) {
    await tx.execute(
      sql`create temporary table ${NEXT_FIGURES} on commit drop as select * from span_rollups with no data`,
    );
    await tx.execute(
      sql`create temporary table ${NEXT_LATENCY} on commit drop as select * from span_latency_rollups with no data`,
    );
  }
  for (const span of wanted) {
    const base = options.changesNoted ? spanToMove(span, held) : undefined;
    await sumSpan(tx, span, base, isHeld(span) ? 'beside' : 'in place');
  }

  if (replaced.length > 0) {
    await deleteSpans(tx, sql`(span_from, span_to) in (${rangeList(replaced)})`);
    await tx.execute(sql`insert into span_rollups select * from ${NEXT_FIGURES}`);
    await tx.execute(sql`insert into span_latency_rollups select * from ${NEXT_LATENCY}`);
  }
  if (wanted.length > 0) {
    const listed = sql.join(
      wanted.map((span) => sql`(${bound(span.from)}, ${bound(span.to)}, ${span.latency}::boolean)`),
      sql`, `,
    );
    await tx.execute(sql`
      insert into rollup_spans (span_from, span_to, latency, stored_at)
      select span_from, span_to, latency, ${passStamp('rollup_spans')}
      from (values ${listed}) as spans(span_from, span_to, latency)`);
  }
}

const NEXT_FIGURES = sql.raw('next_span_rollups');
const NEXT_LATENCY = sql.raw('next_span_latency');

const rangeList = (spans: TimeRange[]) =>
  sql.join(
    spans.map((span) => sql`(${bound(span.from)}, ${bound(span.to)})`),
    sql`, `,
  );

/** The spans the last pass stored: the ones this pass moves (the previous pass's are one pass behind). */
export async function readHeldSpans(tx: Transaction): Promise<StoredSpan[]> {
  const rows = await tx.execute<{ span_from: Date; span_to: Date; latency: boolean }>(sql`
    select span_from, span_to, latency from rollup_spans where stored_at = (select max(stored_at) from rollup_spans)`);
  return rows.map((row) => ({ from: new Date(row.span_from), to: new Date(row.span_to), latency: row.latency }));
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
 * Sums one span: afresh from the rollups, or moved from `base` (a held span)
 * by the hours between them and this pass's changes. Written 'in place' (a
 * span of new hours) or 'beside' the held span of the same hours, into the
 * next_ tables. Its latency histograms only when it keeps them, moved only
 * from a base that kept them.
 *
 * A moved histogram is the held one plus the change, merged step by step: the
 * change (an hour in, an hour out, late rows) is a few entries per step, the
 * held histogram a hundred or more. Merging each step's two arrays on their
 * own took half the time of regrouping every entry of every step at once
 * (2,000 steps: 165-196 against 355-367 ms for the 24 h span).
 */
async function sumSpan(
  tx: Transaction,
  span: StoredSpan,
  base: StoredSpan | undefined,
  where: 'in place' | 'beside',
): Promise<void> {
  const figureParts: SQL[] = [];
  // Histogram entries (agent, step, latency_bucket, attempts): the whole span's when summed afresh, the change
  // to the held span's when moved.
  const latencyParts: SQL[] = [];
  // [from, to) from the hourly and daily rollups themselves (finestBucket 'day': never a stored span), signed.
  const addRolled = async (from: Date, to: Date, sign: 1 | -1, parts: { figures: boolean; latency: boolean }) => {
    if (from >= to) return;
    const plan = await planFigures(tx, { windows: [{ label: 'span', from, to }], finestBucket: 'day' });
    if (parts.figures)
      figureParts.push(sql`select agent, step, error_class, ${signedFigures(sign)} from ${plan.figures} as figures`);
    if (parts.latency)
      latencyParts.push(sql`
        select agent, step, entry.latency_bucket, ${sign === 1 ? sql`` : sql`-`}entry.attempts
        from ${plan.latency} as latency, unnest(buckets, counts) as entry(latency_bucket, attempts)`);
  };

  const moveLatency = span.latency && base?.latency === true;
  if (base) {
    const heldFrom = bound(base.from);
    const heldTo = bound(base.to);
    figureParts.push(sql`
      select agent, step, error_class, ${figureList()}
      from span_rollups where span_from = ${heldFrom} and span_to = ${heldTo}`);
    figureParts.push(sql`
      select agent, step, error_class, ${figureList()}
      from ${HOURLY_CHANGES} where bucket_start >= ${heldFrom} and bucket_start < ${heldTo}`);
    if (moveLatency) {
      latencyParts.push(sql`
        select agent, step, latency_bucket, attempts
        from ${HOURLY_LATENCY_CHANGES} where bucket_start >= ${heldFrom} and bucket_start < ${heldTo}`);
    }
    await addRolled(base.from, span.from, -1, { figures: true, latency: moveLatency });
    await addRolled(base.to, span.to, 1, { figures: true, latency: moveLatency });
  }
  const latencyAfresh = span.latency && !moveLatency;
  if (!base || latencyAfresh) await addRolled(span.from, span.to, 1, { figures: !base, latency: latencyAfresh });

  const from = bound(span.from);
  const to = bound(span.to);
  const figuresTable = where === 'in place' ? sql.raw('span_rollups') : NEXT_FIGURES;
  const latencyTable = where === 'in place' ? sql.raw('span_latency_rollups') : NEXT_LATENCY;
  // A step and class whose attempts all left the span sums to zero everywhere: it has no row.
  await tx.execute(sql`
    insert into ${figuresTable} (span_from, span_to, agent, step, error_class, ${figureList()})
    select ${from}, ${to}, agent, step, error_class, ${summedFigures()}
    from (${sql.join(figureParts, sql` union all `)}) as parts
    group by agent, step, error_class
    having sum(attempts) <> 0`);
  if (latencyParts.length === 0) return;
  // Each step's entries summed per latency bucket, as a histogram's two arrays.
  const histograms = sql`(
    select agent, step, array_agg(latency_bucket order by latency_bucket) as buckets,
      array_agg(attempts order by latency_bucket) as counts
    from (
      select agent, step, latency_bucket, sum(attempts)::bigint as attempts
      from (${sql.join(latencyParts, sql` union all `)}) as parts(agent, step, latency_bucket, attempts)
      group by agent, step, latency_bucket
    ) as per_bucket
    where attempts <> 0
    group by agent, step)`;
  if (!moveLatency) {
    await tx.execute(sql`
      insert into ${latencyTable} (span_from, span_to, agent, step, buckets, counts)
      select ${from}, ${to}, agent, step, buckets, counts from ${histograms} as summed`);
    return;
  }
  // A bucket the change empties (its entries cancel) is dropped; a step left with no bucket has no row.
  await tx.execute(sql`
    insert into ${latencyTable} (span_from, span_to, agent, step, buckets, counts)
    select ${from}, ${to}, agent, step, merged.buckets, merged.counts
    from (
      select agent, step, buckets, counts from span_latency_rollups
      where span_from = ${bound(base!.from)} and span_to = ${bound(base!.to)}
    ) as held
      full join ${histograms} as change using (agent, step)
      cross join lateral (
        select array_agg(latency_bucket order by latency_bucket) as buckets,
          array_agg(attempts order by latency_bucket) as counts
        from (
          select latency_bucket, sum(attempts)::bigint as attempts
          from (
            select * from unnest(held.buckets, held.counts)
            union all
            select * from unnest(change.buckets, change.counts)
          ) as entry(latency_bucket, attempts)
          group by latency_bucket
        ) as per_bucket
        where attempts <> 0
      ) as merged
    where merged.buckets is not null`);
}
