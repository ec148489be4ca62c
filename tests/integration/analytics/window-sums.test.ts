import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { attempts, errorClasses } from '../../../lib/db/schema';
import { type FiguresRequest, planFigures } from '../../../lib/rollups/figures';
import { rollUpAttempts } from '../../../lib/rollups/roll-up';
import { STORED_SUMS_REACH_MS } from '../../../lib/rollups/segments';
import { windowSumRangesFor } from '../../../lib/rollups/window-sums';
import { resolveTimeWindow, type TimeRange, timeWindowName } from '../../../lib/time-window';
import { useTestDatabase } from '../../support/test-database';

/**
 * Stored window sums (lib/rollups/window-sums.ts): every rollup pass sums each
 * step over the named windows' five-minute-aligned parts, and a reader within
 * a quarter hour of the pass reads its window from them, corrected at both
 * ends, to exactly the figures of a raw recount.
 */
const database = useTestDatabase();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The pass: mid-way through a five-minute bucket, 7.5 minutes into the hour. */
const passAt = new Date('2026-11-30T12:07:30Z');
const retentionFloor = new Date(passAt.getTime() - 40 * DAY);
const steps = [
  ['outreach', 'draft'],
  ['outreach', 'send'],
  ['payments', 'charge'],
  ['research', 'search'],
] as const;

let seed = 11;
const random = () => {
  seed = (seed * 48_271) % 2_147_483_647;
  return seed / 2_147_483_647;
};

/** `count` attempts at random moments in [from, to), of random steps, some retries, some failed. */
function someAttempts(count: number, from: number, to: number, prefix: string) {
  return Array.from({ length: count }, (_, index) => {
    const [agent, step] = steps[Math.floor(random() * steps.length)]!;
    const startedAt = new Date(from + Math.floor(random() * (to - from)));
    const failed = random() < 0.3;
    const errorClass = failed ? errorClasses[Math.floor(random() * errorClasses.length)]! : null;
    return {
      taskId: `${prefix}-${index}`,
      agent,
      step,
      attemptNumber: 1 + Math.floor(random() * 3),
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 200),
      latencyMs: 200,
      outcome: failed ? ('failed' as const) : ('succeeded' as const),
      errorClass,
      errorText: failed ? 'from the downstream' : null,
      costMicros: Math.floor(random() * 5_000_000),
    };
  });
}

async function insertAll(rows: (typeof attempts.$inferInsert)[]) {
  for (let index = 0; index < rows.length; index += 500)
    await database.db.insert(attempts).values(rows.slice(index, index + 500));
}

/** Each step's figures summed over error classes, through a plan. */
async function sumsPerStep(request: FiguresRequest) {
  const plan = await planFigures(database.db, request);
  const rows = await database.db.execute<Record<string, string>>(sql`
    select agent || '/' || step as key, sum(attempts)::text as attempts, sum(retries)::text as retries,
      sum(failures)::text as failures, sum(executions)::text as executions,
      sum(first_try_successes)::text as first_try_successes, sum(cost_micros)::text as cost_micros,
      sum(retry_cost_micros)::text as retry_cost_micros
    from ${plan.figures} as figures
    group by agent, step
    having sum(attempts) <> 0`);
  return { plan, sums: Object.fromEntries(rows.map(({ key, ...figures }) => [key, figures])) };
}

/** A window ending at `readAt`, or the one of the same length before it. */
function windowOf(name: (typeof timeWindowName.options)[number], readAt: Date, side: 'now' | 'before') {
  const current = resolveTimeWindow(name, readAt);
  if (side === 'now') return current;
  const length = current.to.getTime() - current.from.getTime();
  return { from: new Date(current.from.getTime() - length), to: current.from };
}

async function expectStoredSumsExact(readAt: Date, options: { served: boolean }) {
  for (const name of timeWindowName.options) {
    for (const side of ['now', 'before'] as const) {
      const window: TimeRange = windowOf(name, readAt, side);
      const label = `${name} ${side} at ${readAt.toISOString()}`;
      const served = await sumsPerStep({ windows: [{ label: 'w', ...window }], acrossClasses: true });
      const raw = await sumsPerStep({ windows: [{ label: 'w', ...window }], rawOnly: true });
      // The 30 days before the last 30 start past the retention floor: never stored.
      const stored = options.served && !(name === '30d' && side === 'before');
      expect(
        served.plan.segments.some((segment) => segment.grain === 'sums'),
        label,
      ).toBe(stored);
      expect(served.sums, label).toEqual(raw.sums);
      expect(Object.keys(raw.sums).length, label).toBeGreaterThan(0);
    }
  }
}

beforeAll(async () => {
  // 35 days of history, denser in the last two, and attempts up to the pass.
  await insertAll([
    ...someAttempts(1_500, passAt.getTime() - 35 * DAY, passAt.getTime() - 2 * DAY, 'old'),
    ...someAttempts(2_500, passAt.getTime() - 2 * DAY, passAt.getTime(), 'recent'),
  ]);
});

describe('stored window sums', () => {
  it('serve readers up to ten minutes after the pass, to exactly the raw figures at both ends of every window', async () => {
    await rollUpAttempts(database.db, { now: passAt, retentionFloor });
    for (const minutesAfter of [0, 0.5, 2.75, 4, 7, 10]) {
      const readAt = new Date(passAt.getTime() + minutesAfter * MINUTE);
      // Attempts keep arriving after the pass: those after its five-minute edge count at once.
      await insertAll(someAttempts(20, passAt.getTime(), readAt.getTime() + 1, `after-${minutesAfter}`));
      await expectStoredSumsExact(readAt, { served: true });
    }
    // A reader whose clock is a little behind the pass's is served too.
    await expectStoredSumsExact(new Date(passAt.getTime() - 3 * MINUTE), { served: true });
  });

  it('are not used past their reach (the pass has not run for a while): the window is planned as usual', async () => {
    await expectStoredSumsExact(new Date(passAt.getTime() + STORED_SUMS_REACH_MS + 6 * MINUTE), { served: false });
  });

  it('take in a late row for a rolled hour at the next pass, as the rollups do', async () => {
    const window = [{ label: 'w', ...resolveTimeWindow('24h', passAt) }];
    await rollUpAttempts(database.db, { now: passAt, retentionFloor });
    const [late] = someAttempts(1, passAt.getTime() - 3 * HOUR, passAt.getTime() - 3 * HOUR + 1, 'late');
    await insertAll([late!]);
    const lagging = await sumsPerStep({ windows: window, acrossClasses: true });
    const raw = await sumsPerStep({ windows: window, rawOnly: true });
    const key = `${late!.agent}/${late!.step}`;
    expect(Number(raw.sums[key]!.attempts) - Number(lagging.sums[key]!.attempts)).toBe(1);
    expect(Number(raw.sums[key]!.cost_micros) - Number(lagging.sums[key]!.cost_micros)).toBe(late!.costMicros);

    await rollUpAttempts(database.db, { now: passAt, retentionFloor });
    expect((await sumsPerStep({ windows: window, acrossClasses: true })).sums).toEqual(raw.sums);
  });

  it("keep the previous pass's ranges for readers that planned on them, and drop older ones with their rows", async () => {
    const rangesOf = (ranges: TimeRange[]) =>
      ranges.map((range) => `${range.from.toISOString()}..${range.to.toISOString()}`).sort();
    const held = async () =>
      rangesOf(
        (
          await database.db.execute<{ sums_from: Date; sums_to: Date }>(
            sql`select sums_from, sums_to from window_sum_ranges`,
          )
        ).map((row) => ({ from: new Date(row.sums_from), to: new Date(row.sums_to) })),
      );
    const storedBy = (at: Date) =>
      windowSumRangesFor(at, new Date(Math.floor(at.getTime() / (5 * MINUTE)) * 5 * MINUTE), retentionFloor);
    // Five minutes apart, so no two passes store the same range.
    const passes = [5, 10, 15].map((minutes) => new Date(passAt.getTime() + minutes * MINUTE));
    for (const at of passes) await rollUpAttempts(database.db, { now: at, retentionFloor });
    expect(await held()).toEqual(rangesOf([...storedBy(passes[1]!), ...storedBy(passes[2]!)]));

    // A pass whose clock is behind (another instance's) still counts as the latest: the one before it stays.
    const behind = new Date(passAt.getTime() - 20 * MINUTE);
    await rollUpAttempts(database.db, { now: behind, retentionFloor });
    expect(await held()).toEqual(rangesOf([...storedBy(passes[2]!), ...storedBy(behind)]));

    const [orphans] = await database.db.execute<{ count: number }>(sql`
      select count(*)::int as count from window_sums as sums
      where not exists (select 1 from window_sum_ranges as ranges
        where ranges.sums_from = sums.sums_from and ranges.sums_to = sums.sums_to)`);
    expect(orphans!.count).toBe(0);
  });
});

describe('a late row re-rolled by a pass', () => {
  // Each pass keeps the previous pass's ranges and spans for readers that listed them before it committed; those
  // still hold the hour as it was before the late row. A reader listing after the commit must not pick them, whatever
  // its clock: the previous ranges lie nearer a reader at or just after a pass that followed one at a five-minute
  // edge, and a reader whose clock is behind the pass's (another instance's, or one that read its clock just before
  // the pass began) finds the previous pass's spans and ranges nearest its window.
  const cases = [
    { first: '2026-11-30T13:30:00Z', second: '2026-11-30T13:31:00Z', readers: ['13:31:00', '13:31:30', '13:30:05'] },
    { first: '2026-11-30T13:59:30Z', second: '2026-11-30T14:00:30Z', readers: ['13:59:35', '14:00:00', '14:00:30'] },
  ];

  it.each(cases)('counts at once for readers at, after or behind its clock (passes $first, $second)', async (pass) => {
    const first = new Date(pass.first);
    await rollUpAttempts(database.db, { now: first, retentionFloor });
    // Into the hour before the last closed one: inside the stored spans and every window's stored sums.
    const closedHour = Math.floor(first.getTime() / HOUR) * HOUR - HOUR;
    const late = someAttempts(3, closedHour, closedHour + HOUR, `late-${pass.first}`);
    await insertAll(late);
    await rollUpAttempts(database.db, { now: new Date(pass.second), retentionFloor });

    for (const clock of pass.readers) {
      const readAt = new Date(`${pass.first.slice(0, 11)}${clock}Z`);
      for (const name of ['24h', '7d', '30d'] as const) {
        const window = [{ label: 'w', ...resolveTimeWindow(name, readAt) }];
        const label = `${name} read at ${clock}`;
        const raw = await sumsPerStep({ windows: window, rawOnly: true });
        const served = await sumsPerStep({ windows: window, acrossClasses: true });
        // Still served from the last pass's sums (every reader here is within their reach), and exact.
        expect(
          served.plan.segments.some((segment) => segment.grain === 'sums'),
          label,
        ).toBe(true);
        expect(served.sums, `${label}, stored sums`).toEqual(raw.sums);
        expect((await sumsPerStep({ windows: window })).sums, `${label}, stored spans`).toEqual(raw.sums);
      }
    }
  });
});
