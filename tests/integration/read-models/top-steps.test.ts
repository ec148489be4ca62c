import { beforeAll, describe, expect, it } from 'vitest';
import { recordAttempt, type RecordAttemptInput } from '../../../packages/engine/src/core';
import { applyStepsView } from '../../../lib/queries/steps-page';
import { parseStepsView } from '../../../lib/filters/steps';
import { readStepFigures } from '../../../lib/queries/step-figures';
import { getStepStats, withShownDetails } from '../../../lib/queries/step-stats';
import { getStepAnomalies } from '../../../lib/queries/anomalies';
import { getStepsPage } from '../../../lib/queries/steps-page';
import { getTopStepsView, TOP_STEPS_SHOWN } from '../../../lib/queries/top-steps';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { resolveTimeWindow } from '@holdfast/protocol/time-window';
import { anAttempt } from '../../support/attempt-factory';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const now = new Date('2026-11-20T12:30:00Z');
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** An attempt's start and its finish latencyMs later. */
const timed = (startedAt: Date, latencyMs = 500) => ({
  startedAt,
  finishedAt: new Date(startedAt.getTime() + latencyMs),
});

/** A first attempt's outcome: every other step's failed, in one of three classes. */
const FAILURES = [
  { outcome: 'failed', errorClass: 'transient', errorText: '503 from downstream' },
  {},
  { outcome: 'failed', errorClass: 'timeout', errorText: 'no answer in 30 s' },
  {},
  { outcome: 'failed', errorClass: 'rate_limited', errorText: '429' },
  {},
] as const;

/** A retry that failed: with no attempt 1 in its task, its own cost is its retry spend (beyond one try). */
const FAILED_RETRY = { outcome: 'failed', errorClass: 'transient', errorText: '502 from downstream' } as const;

/**
 * 14 steps with distinct retry spend (step-0 the most), two with none that tie on it and differ in attempts;
 * every other step's first attempt failed. Each retry failed (FAILED_RETRY), so a step's retry spend is its
 * retry's cost.
 */
function fleetOfSteps(): RecordAttemptInput[] {
  const reports: RecordAttemptInput[] = [];
  for (let index = 0; index < 12; index += 1) {
    const startedAt = new Date(now.getTime() - (2 + index) * HOUR_MS);
    reports.push(
      anAttempt({
        agent: 'fleet',
        step: `step-${index}`,
        ...timed(startedAt, 40 * (index + 1)),
        costMicros: 500,
        ...FAILURES[index % FAILURES.length],
      }),
      anAttempt({
        agent: 'fleet',
        step: `step-${index}`,
        attemptNumber: 2,
        ...timed(new Date(startedAt.getTime() + 60_000), 900),
        costMicros: 100_000 - index * 5_000,
        ...FAILED_RETRY,
      }),
    );
  }
  for (const [step, count] of [
    ['quiet-b', 3],
    ['quiet-a', 1],
  ] as const) {
    for (let index = 0; index < count; index += 1) {
      reports.push(
        anAttempt({ agent: 'fleet', step, ...timed(new Date(now.getTime() - HOUR_MS / 2 - index * 60_000)) }),
      );
    }
  }
  return reports;
}

/**
 * A step whose last 24 hours retry half its spend against a week of 5%: the
 * anomaly rule flags it, and its retry spend (10 x 100) is below every top step's.
 * Its retries failed (each a task of its own), so each retry's 100 is retry spend.
 */
function anomalousStep(): RecordAttemptInput[] {
  const reports: RecordAttemptInput[] = [];
  for (let day = 0; day < 8; day += 1) {
    for (let index = 0; index < 20; index += 1) {
      const startedAt = new Date(now.getTime() - day * DAY_MS - 6 * HOUR_MS + index * 1_000);
      const retry = day === 0 ? index < 10 : index === 0;
      reports.push(
        anAttempt({
          agent: 'odd',
          step: 'publish',
          attemptNumber: retry ? 2 : 1,
          ...timed(startedAt),
          costMicros: 100,
          ...(retry ? FAILED_RETRY : {}),
        }),
      );
    }
  }
  return reports;
}

beforeAll(async () => {
  for (const input of [...fleetOfSteps(), ...anomalousStep()]) {
    await recordAttempt({ db: database.db, clock: () => now }, input);
  }
});

describe('getTopStepsView', () => {
  it("lists the Steps page's first rows, counts every step, and adds flagged steps outside the top", async () => {
    const range = resolveTimeWindow('24h', now);
    const every = await getStepStats(database.db, range);
    expect(every.length).toBe(15);

    const view = await getTopStepsView(database.db, '24h', now);
    expect(view.steps).toEqual(every.slice(0, TOP_STEPS_SHOWN));
    expect(view.stepCount).toBe(15);
    expect(Object.keys(view.anomalies)).toEqual(['odd/publish']);
    expect(view.flaggedElsewhere).toEqual(every.filter((row) => row.agent === 'odd'));
    expect(view.steps.some((row) => row.agent === 'odd')).toBe(false);
  });

  it('shows every step when there are few, and nothing extra for a flagged step already shown', async () => {
    // 1 hour: the last two steps of the fleet (quiet-a and quiet-b) alone; the flagged step has no attempts in it.
    const view = await getTopStepsView(database.db, '1h', now);
    expect(view.steps.map((row) => row.step)).toEqual(['quiet-b', 'quiet-a']);
    expect(view.stepCount).toBe(2);
    expect(view.flaggedElsewhere).toEqual([]);
  });

  it('gives the same view from the rollups as from the raw log', async () => {
    await rollUpAttempts(database.db, { now, retentionFloor: new Date(now.getTime() - 40 * DAY_MS) });
    for (const window of ['24h', '7d', '30d'] as const) {
      expect(await getTopStepsView(database.db, window, now)).toEqual(
        await getTopStepsView(database.db, window, now, { rawOnly: true }),
      );
    }
  });
});

describe('withShownDetails', () => {
  it("reads failures by class and latency of the rows given, equal to a full read's", async () => {
    const range = resolveTimeWindow('24h', now);
    const every = await readStepFigures(database.db, range, { previousWindow: true });
    const figuresOnly = await readStepFigures(database.db, range, {
      latency: false,
      failureClasses: false,
      previousWindow: true,
    });
    expect(
      figuresOnly.every(
        (row) =>
          row.latencyP50Ms === null &&
          row.latencyP95Ms === null &&
          row.failedSpendMicros === null &&
          Object.keys(row.failuresByClass).length === 0,
      ),
    ).toBe(true);
    expect(figuresOnly.map(({ agent, step }) => `${agent}/${step}`)).toEqual(
      every.map(({ agent, step }) => `${agent}/${step}`),
    );

    const page = await withShownDetails(database.db, range, figuresOnly.slice(3, 8));
    expect(page).toEqual(every.slice(3, 8));
    expect(page.every((row) => row.latencyP95Ms !== null)).toBe(true);
    expect(page.some((row) => Object.keys(row.failuresByClass).length > 0)).toBe(true);
  });
});

describe('getStepsPage', () => {
  it("shows the same rows, latency included, as sorting every step's full figures, for any sort", async () => {
    const sorts = [
      'retrySpendMicros',
      'latencyP95Ms',
      'attempts',
      'failedSpendMicros',
      'retrySpendChangeMicros',
    ] as const;
    for (const sort of sorts) {
      for (const dir of ['asc', 'desc'] as const) {
        const view = parseStepsView({ window: '24h', sort, dir }, now);
        const every = applyStepsView(await readStepFigures(database.db, view.range, { previousWindow: true }), view);
        const first = await getStepsPage(database.db, view, undefined, now);
        expect(first.steps, `${sort} ${dir}`).toEqual(every.slice(0, 50));
        expect(first.total).toBe(every.length);
        expect(first.agents).toEqual(['fleet', 'odd']);
      }
    }
  });

  it("flags the same steps as the anomaly rule's own read, for every window", async () => {
    const rule = await getStepAnomalies(database.db, now);
    expect([...rule.keys()]).toEqual(['odd/publish']);
    for (const window of ['1h', '24h', '7d'] as const) {
      const page = await getStepsPage(database.db, parseStepsView({ window }, now), undefined, now);
      expect(page.anomalies, window).toEqual(rule);
    }
  });
});
