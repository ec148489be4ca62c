import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Transaction } from '../../../packages/engine/src/db/client';
import { attempts, errorClasses } from '../../../packages/engine/src/db/schema';
import { getStepStats } from '../../../lib/queries/step-stats';
import { planFigures } from '../../../packages/engine/src/rollups/figures';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { deleteSpans, spansFor, storeSpans } from '../../../packages/engine/src/rollups/spans';
import { resolveTimeWindow } from '@holdfast/protocol/time-window';
import { useTestDatabase } from '../../support/test-database';

/**
 * The rollup pass moves the stored spans hour by hour (held span + this
 * pass's changes + the hours added - the hours dropped) instead of summing
 * them afresh. Over passes with late rows in every kind of hour (inside a
 * span, in the hour a span is about to drop, in the previous window's span)
 * and running attempts that finish, the moved spans must equal spans summed
 * afresh, row for row, and the reads that use them a raw recount.
 */
const database = useTestDatabase();

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** 62 days of history before the first pass, so the previous 30 days have a span too. */
const firstNow = new Date('2026-10-03T00:20:00Z').getTime() + 62 * DAY_MS;
const floor = new Date(firstNow - 70 * DAY_MS);
const steps = [
  ['outreach', 'draft'],
  ['outreach', 'send'],
  ['payments', 'charge'],
] as const;

function randomSource(seed: number) {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return { int: (below: number) => Math.floor(next() * below) };
}
const random = randomSource(7);
let taskNumber = 0;

type NewAttempt = typeof attempts.$inferInsert;
function attemptAt(at: number, overrides: Partial<NewAttempt> = {}): NewAttempt {
  const [agent, step] = steps[random.int(steps.length)]!;
  const latencyMs = 1 + random.int(5_000);
  const failed = random.int(5) === 0;
  return {
    taskId: `span-${(taskNumber += 1)}`,
    agent,
    step,
    attemptNumber: 1 + random.int(3),
    startedAt: new Date(at),
    finishedAt: new Date(at + latencyMs),
    latencyMs,
    outcome: failed ? 'failed' : 'succeeded',
    errorClass: failed ? errorClasses[random.int(errorClasses.length)]! : null,
    errorText: failed ? 'simulated' : null,
    costMicros: random.int(10_000),
    ...overrides,
  };
}

async function insertAll(rows: NewAttempt[]) {
  for (let index = 0; index < rows.length; index += 500) {
    await database.db.insert(attempts).values(rows.slice(index, index + 500));
  }
}

/** Every row of the spans the last pass stored, in one order, as text (bigint sums stay exact). */
async function readSpans(executor: Pick<Transaction, 'execute'>) {
  const lastPass = sql`(span_from, span_to) in (select span_from, span_to from rollup_spans
    where stored_at = (select max(stored_at) from rollup_spans))`;
  const figures = await executor.execute(sql`
    select span_from::text, span_to::text, agent, step, error_class::text, attempts::text, retries::text,
      failures::text, executions::text, first_try_successes::text, cost_micros::text, retry_cost_micros::text
    from span_rollups where ${lastPass} order by 1, 2, 3, 4, 5 nulls first`);
  const latency = await executor.execute(sql`
    select span_from::text, span_to::text, agent, step, buckets::text, counts::text
    from span_latency_rollups where ${lastPass} order by 1, 2, 3, 4`);
  return { figures: [...figures], latency: [...latency] };
}

/** The spans summed afresh from the rollups for `edge`, read inside a transaction that is then undone. */
async function spansSummedAfresh(edge: Date) {
  let afresh: Awaited<ReturnType<typeof readSpans>> | undefined;
  await database.db
    .transaction(async (tx) => {
      await deleteSpans(tx, sql`true`);
      await storeSpans(tx, edge, [], { changesNoted: false });
      afresh = await readSpans(tx);
      throw new Error('undo');
    })
    .catch((error: Error) => {
      if (error.message !== 'undo') throw error;
    });
  return afresh!;
}

const rolledEdge = async () => {
  const [state] = await database.db.execute<{ rolled_to: Date }>(sql`select rolled_to from rollup_state`);
  return new Date(state!.rolled_to);
};

describe('stored spans', () => {
  it('are moved hour by hour to exactly the sums a fresh pass gives, late rows and all', async () => {
    // About one attempt every 40 minutes for 62 days, and a running attempt in the last hour.
    const history = Array.from({ length: 62 * 36 }, (_, index) =>
      attemptAt(firstNow - 62 * DAY_MS + index * 40 * MINUTE_MS + random.int(30 * MINUTE_MS)),
    ).filter((row) => row.startedAt!.getTime() < firstNow);
    const running = attemptAt(firstNow - 50 * MINUTE_MS, {
      outcome: 'running',
      finishedAt: null,
      latencyMs: null,
      errorClass: null,
      errorText: null,
    });
    await insertAll([...history, running]);
    await rollUpAttempts(database.db, { now: new Date(firstNow), retentionFloor: floor });
    expect(await readSpans(database.db)).toEqual(await spansSummedAfresh(await rolledEdge()));

    let now = firstNow;
    for (let pass = 1; pass <= 6; pass += 1) {
      // The edge moves one hour, or two (a pass that was late).
      const hours = pass === 4 ? 2 : 1;
      const newRows = Array.from({ length: 6 * hours }, (_, index) => attemptAt(now + index * 10 * MINUTE_MS));
      now += hours * HOUR_MS;
      const edge = Math.floor(now / HOUR_MS) * HOUR_MS;
      const spans = spansFor(new Date(edge - HOUR_MS * hours));
      const late = [
        // Inside the current spans, a few hours back.
        attemptAt(edge - 5 * HOUR_MS + random.int(HOUR_MS)),
        // In the first hour of the 7-day span held now: the hour this pass drops from it.
        attemptAt(spans[2]!.from.getTime() + random.int(HOUR_MS)),
        // Inside the previous 30 days' span.
        attemptAt(edge - 40 * DAY_MS + random.int(HOUR_MS)),
      ];
      await insertAll([...newRows.filter((row) => row.startedAt!.getTime() < now), ...late]);
      if (pass === 2) {
        // The running attempt finishes: its hour is rolled again, its row moves from no class to one.
        await database.db.execute(sql`
          update attempts set outcome = 'failed', error_class = 'timeout', error_text = 'late finish',
            finished_at = started_at + interval '2 seconds', latency_ms = 2000
          where task_id = ${running.taskId}`);
      }

      const result = await rollUpAttempts(database.db, { now: new Date(now), retentionFloor: floor });
      expect(result.hoursReRolled, `pass ${pass}`).toBeGreaterThanOrEqual(3);
      expect(await readSpans(database.db), `pass ${pass}`).toEqual(await spansSummedAfresh(await rolledEdge()));
    }

    for (const name of ['24h', '7d', '30d'] as const) {
      const range = resolveTimeWindow(name, new Date(now));
      expect(await getStepStats(database.db, range), name).toEqual(
        await getStepStats(database.db, range, { rawOnly: true }),
      );
    }
  });

  it('are moved from the spans held, not summed afresh', async () => {
    // A mark put on the held 30-day span (one extra attempt in one row) is carried into the next pass's
    // 30-day span: proof that the pass moved it. Summed afresh, the mark would be gone.
    const thirtyDays = (edge: Date) => spansFor(edge)[4]!;
    const held = thirtyDays(await rolledEdge());
    const [marked] = await database.db.execute<{ agent: string; step: string; error_class: string | null }>(sql`
      update span_rollups set attempts = attempts + 1
      where ctid = (select ctid from span_rollups
        where span_from = ${held.from.toISOString()}::timestamptz and span_to = ${held.to.toISOString()}::timestamptz
        limit 1)
      returning agent, step, error_class::text`);
    // And one more attempt in its first latency bucket of one step's histogram.
    const [markedHistogram] = await database.db.execute<{ agent: string; step: string }>(sql`
      update span_latency_rollups set counts[1] = counts[1] + 1
      where ctid = (select ctid from span_latency_rollups
        where span_from = ${held.from.toISOString()}::timestamptz and span_to = ${held.to.toISOString()}::timestamptz
        limit 1)
      returning agent, step`);
    await rollUpAttempts(database.db, { now: new Date(held.to.getTime() + 90 * MINUTE_MS), retentionFloor: floor });

    const edge = await rolledEdge();
    expect(edge.getTime()).toBe(held.to.getTime() + HOUR_MS);
    const span = thirtyDays(edge);
    const markedRow = (rows: Record<string, unknown>[]) =>
      rows.find(
        (row) =>
          row.span_from === span.from.toISOString().replace('T', ' ').replace('.000Z', '+00') &&
          row.agent === marked!.agent &&
          row.step === marked!.step &&
          row.error_class === marked!.error_class,
      );
    const moved = await readSpans(database.db);
    const afresh = await spansSummedAfresh(edge);
    expect(Number(markedRow(moved.figures)!.attempts) - Number(markedRow(afresh.figures)!.attempts)).toBe(1);

    const histogramCount = (rows: Record<string, unknown>[]) => {
      const row = rows.find(
        (entry) =>
          entry.span_from === span.from.toISOString().replace('T', ' ').replace('.000Z', '+00') &&
          entry.agent === markedHistogram!.agent &&
          entry.step === markedHistogram!.step,
      );
      // counts as text: {3,1,4}
      return String(row!.counts)
        .slice(1, -1)
        .split(',')
        .map(Number)
        .reduce((sum, count) => sum + count, 0);
    };
    expect(histogramCount(moved.latency) - histogramCount(afresh.latency)).toBe(1);
  });

  it('keep latency histograms for the named windows only; the window before reads its latency from hours and days', async () => {
    const edge = await rolledEdge();
    const listed = await database.db.execute<{
      span_from: Date;
      span_to: Date;
      latency: boolean;
      histograms: number;
    }>(sql`
      select span_from, span_to, latency,
        (select count(*) from span_latency_rollups as held
          where held.span_from = spans.span_from and held.span_to = spans.span_to)::int as histograms
      from rollup_spans as spans where stored_at = (select max(stored_at) from rollup_spans) order by span_from`);
    const wanted = spansFor(edge);
    expect(listed.map((row) => [new Date(row.span_from).getTime(), row.latency])).toEqual(
      [...wanted]
        .sort((a, b) => a.from.getTime() - b.from.getTime())
        .map((span) => [span.from.getTime(), span.latency]),
    );
    expect(wanted.filter((span) => span.latency)).toHaveLength(3);
    for (const row of listed) expect(row.histograms > 0, `${row.span_from.toString()}`).toBe(row.latency);

    // The 24 hours before the last 24: their figures from the stored span, their latency from the rollups.
    const now = new Date(edge.getTime() + 30 * MINUTE_MS);
    const current = resolveTimeWindow('24h', now);
    const before = { from: new Date(current.from.getTime() - DAY_MS), to: current.from };
    const plan = await planFigures(database.db, { windows: [{ label: 'before', ...before }] });
    expect(plan.segments.map((segment) => segment.grain)).toContain('span');
    const served = await getStepStats(database.db, before);
    expect(served.some((row) => row.latencyP95Ms !== null)).toBe(true);
    expect(served).toEqual(await getStepStats(database.db, before, { rawOnly: true }));
  });

  it('stay readable by a reader that listed them just before a pass moved them', async () => {
    // A reader reads the edges and the list of spans in one statement and the spans' rows in the next. Here the
    // pass that moves every span by an hour commits between the two: the reader must still find the rows it
    // planned with (kept one pass) and give exactly the raw recount.
    // The test before marked a span, and moving carries the mark along: start from spans summed afresh.
    await deleteSpans(database.db, sql`true`);
    for (const name of ['24h', '7d', '30d'] as const) {
      const edge = (await rolledEdge()).getTime();
      await insertAll(Array.from({ length: 5 }, (_, index) => attemptAt(edge + (5 + index * 8) * MINUTE_MS)));
      const readerNow = new Date(edge + 50 * MINUTE_MS);
      await rollUpAttempts(database.db, { now: readerNow, retentionFloor: floor });
      const range = resolveTimeWindow(name, readerNow);
      const recount = await getStepStats(database.db, range, { rawOnly: true });
      // The reader has rows to lose: the history of the tests before, in spans ending at the edge.
      const [held] = await database.db.execute<{ rows: number }>(sql`
        select count(*)::int as rows from span_rollups where span_to = ${new Date(edge).toISOString()}::timestamptz`);
      expect(held!.rows, name).toBeGreaterThan(0);

      let passRan = false;
      const readerWithPassBetween = new Proxy(database.db, {
        get(target, property, receiver) {
          if (property !== 'execute') return Reflect.get(target, property, receiver);
          return async (query: Parameters<typeof target.execute>[0]) => {
            const rows = await target.execute(query);
            if (!passRan) {
              passRan = true;
              await rollUpAttempts(database.db, { now: new Date(edge + 70 * MINUTE_MS), retentionFloor: floor });
            }
            return rows;
          };
        },
      });
      const figures = await getStepStats(readerWithPassBetween, range);

      expect(passRan, name).toBe(true);
      expect((await rolledEdge()).getTime(), name).toBe(edge + HOUR_MS);
      expect(figures, name).toEqual(recount);
      const listed = await database.db.execute<{ span_to: Date }>(sql`select span_to from rollup_spans`);
      expect(
        listed.some((span) => new Date(span.span_to).getTime() === edge),
        `${name}: previous spans kept`,
      ).toBe(true);
    }
    // The next pass drops the spans kept for the reader; only the last pass's remain.
    const edge = (await rolledEdge()).getTime();
    await rollUpAttempts(database.db, { now: new Date(edge + 10 * MINUTE_MS), retentionFloor: floor });
    const kept = await database.db.execute<{ passes: number; orphans: number }>(sql`
      select (select count(distinct stored_at) from rollup_spans)::int as passes,
        (select count(*) from span_rollups where (span_from, span_to) not in (select span_from, span_to from rollup_spans))::int
          + (select count(*) from span_latency_rollups
              where (span_from, span_to) not in (select span_from, span_to from rollup_spans))::int as orphans`);
    expect(kept[0]).toEqual({ passes: 1, orphans: 0 });
  });

  it('are stamped after the last pass even when the database clock is behind it', async () => {
    // A clock stepped back (NTP, a failover) would stamp the next pass's spans before the last pass's: the pass
    // after it would then move the older spans and drop the newer. Here the held spans carry a stamp a day ahead.
    const edge = (await rolledEdge()).getTime();
    await database.db.execute(sql`update rollup_spans set stored_at = stored_at + interval '1 day'`);
    await rollUpAttempts(database.db, { now: new Date(edge + 70 * MINUTE_MS), retentionFloor: floor });

    const [lastPass] = await database.db.execute<{ last_to: Date }>(sql`
      select max(span_to) as last_to from rollup_spans where stored_at = (select max(stored_at) from rollup_spans)`);
    expect(new Date(lastPass!.last_to).getTime()).toBe(edge + HOUR_MS);
    // The next pass moves the new spans, keeps them, and drops the ones stamped ahead.
    await rollUpAttempts(database.db, { now: new Date(edge + 130 * MINUTE_MS), retentionFloor: floor });
    const passesKept = await database.db.execute<{ last_to: Date }>(sql`
      select max(span_to) as last_to from rollup_spans group by stored_at order by 1`);
    expect(passesKept.map((row) => new Date(row.last_to).getTime())).toEqual([edge + HOUR_MS, edge + 2 * HOUR_MS]);
    const range = resolveTimeWindow('24h', new Date(edge + 130 * MINUTE_MS));
    expect(await getStepStats(database.db, range)).toEqual(await getStepStats(database.db, range, { rawOnly: true }));
  });

  it('take spans listed without a stamp, as an instance of the previous version writes them in a rolling upgrade', async () => {
    // The previous version deletes every listed span and lists its own without stored_at: the column's default
    // stamps them, and the next pass of this version moves from them to exact figures.
    await database.db.execute(sql`
      with listed as (delete from rollup_spans returning span_from, span_to)
      insert into rollup_spans (span_from, span_to) select span_from, span_to from listed`);
    const [relisted] = await database.db.execute<{ spans: number }>(
      sql`select count(*)::int as spans from rollup_spans`,
    );
    expect(relisted!.spans).toBeGreaterThan(0);

    const edge = (await rolledEdge()).getTime();
    await rollUpAttempts(database.db, { now: new Date(edge + 70 * MINUTE_MS), retentionFloor: floor });
    for (const name of ['24h', '7d', '30d'] as const) {
      const range = resolveTimeWindow(name, new Date(edge + 70 * MINUTE_MS));
      expect(await getStepStats(database.db, range), name).toEqual(
        await getStepStats(database.db, range, { rawOnly: true }),
      );
    }
  });
});
