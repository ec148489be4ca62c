import { describe, expect, it } from 'vitest';
import { recordAttempt, type RecordAttemptInput } from '../../../packages/engine/src/core';
import { getStepStats, getStepStatsView } from '../../../lib/queries/step-stats';
import { latencyBucketOf, latencyOfBucket } from '../../../packages/engine/src/rollups/latency-buckets';
import { aFailedAttempt, anAttempt } from '../../support/attempt-factory';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const at = (iso: string) => new Date(iso);
const finished = (start: Date) => new Date(start.getTime() + 500);
/** What a latency reads as once it is in a histogram: within ±2.4% of itself. */
const reported = (latencyMs: number) => latencyOfBucket(latencyBucketOf(latencyMs));

async function record(inputs: RecordAttemptInput[]) {
  // The attempts are from mid-November 2026: the library judges their age by this clock, not the machine's.
  for (const input of inputs)
    await recordAttempt({ db: database.db, clock: () => new Date('2026-11-20T00:00:00Z') }, input);
}

function attemptAt(iso: string, overrides: Partial<RecordAttemptInput>): RecordAttemptInput {
  const startedAt = at(iso);
  return anAttempt({ startedAt, finishedAt: finished(startedAt), ...overrides });
}

/** A failed attempt at a time: a retry of it with no attempt 1 recorded still spends its own cost on retrying. */
function failedAt(iso: string, overrides: Partial<RecordAttemptInput>): RecordAttemptInput {
  const startedAt = at(iso);
  return aFailedAttempt({ startedAt, finishedAt: finished(startedAt), ...overrides });
}

describe('getStepStats', () => {
  it('counts attempts, retries, failures and splits retry spend per step, inside [from, to) only', async () => {
    const agent = 'stats-agent';
    // draft: task A succeeds on 1; task B fails twice then succeeds on 3.
    await record([
      attemptAt('2026-11-10T10:00:00Z', { agent, step: 'draft', taskId: 'A', costMicros: 1_000 }),
      {
        ...aFailedAttempt({ agent, step: 'draft', taskId: 'B', costMicros: 2_000 }),
        startedAt: at('2026-11-10T11:00:00Z'),
        finishedAt: at('2026-11-10T11:00:01Z'),
      },
      {
        ...aFailedAttempt({ agent, step: 'draft', taskId: 'B', attemptNumber: 2, costMicros: 3_000 }),
        startedAt: at('2026-11-10T11:01:00Z'),
        finishedAt: at('2026-11-10T11:01:01Z'),
      },
      attemptAt('2026-11-10T11:02:00Z', { agent, step: 'draft', taskId: 'B', attemptNumber: 3, costMicros: 4_000 }),
      // send: one clean attempt.
      attemptAt('2026-11-10T12:00:00Z', { agent, step: 'send', taskId: 'A', costMicros: 10 }),
      // Outside the window on both sides (to is exclusive).
      attemptAt('2026-11-09T23:59:59Z', { agent, step: 'draft', taskId: 'early', costMicros: 50_000 }),
      attemptAt('2026-11-11T00:00:00Z', { agent, step: 'draft', taskId: 'late', attemptNumber: 2, costMicros: 50_000 }),
    ]);

    const stats = await getStepStats(database.db, { from: at('2026-11-10T00:00:00Z'), to: at('2026-11-11T00:00:00Z') });

    expect(stats).toEqual([
      {
        agent,
        step: 'draft',
        attempts: 4,
        retries: 2,
        retryRate: 0.5,
        failures: 2,
        totalSpendMicros: 10_000,
        // Task B spent 9,000 where one try (its succeeded attempt 3) cost 4,000: 5,000 beyond one try (the failed
        // attempt 2's 3,000, and attempt 1's 2,000 that the succeeded retry wasted). Task A has none.
        retrySpendMicros: 5_000,
        // 5,000 of 10,000 spent on retries; task A succeeded first time, task B did not.
        retryShareOfSpend: 0.5,
        firstTrySuccess: 0.5,
        // Latencies 500, 1000, 1000, 500 ms: the nearest-rank p50 is the 2nd of 4 (500), p95 the 4th (1000),
        // each reported as its histogram bucket's value.
        latencyP50Ms: reported(500),
        latencyP95Ms: reported(1_000),
        failuresByClass: { transient: 2 },
      },
      {
        agent,
        step: 'send',
        attempts: 1,
        retries: 0,
        retryRate: 0,
        failures: 0,
        totalSpendMicros: 10,
        retrySpendMicros: 0,
        retryShareOfSpend: 0,
        firstTrySuccess: 1,
        latencyP50Ms: reported(500),
        latencyP95Ms: reported(500),
        failuresByClass: {},
      },
    ]);
  });

  it('keeps agents apart even when they share a step name', async () => {
    await record([
      // A failed retry: its 5 is spent beyond one try.
      failedAt('2026-11-12T10:00:00Z', { agent: 'alpha', step: 'publish', attemptNumber: 2, costMicros: 5 }),
      attemptAt('2026-11-12T10:00:00Z', { agent: 'beta', step: 'publish', costMicros: 7 }),
    ]);
    const stats = await getStepStats(database.db, { from: at('2026-11-12T00:00:00Z'), to: at('2026-11-13T00:00:00Z') });
    expect(stats.map((row) => [row.agent, row.retries, row.retrySpendMicros])).toEqual([
      ['alpha', 1, 5],
      ['beta', 0, 0],
    ]);
  });

  it('returns nothing for an empty window', async () => {
    expect(
      await getStepStats(database.db, { from: at('2001-01-01T00:00:00Z'), to: at('2001-01-02T00:00:00Z') }),
    ).toEqual([]);
  });

  it('keeps sums exact beyond 32-bit integers', async () => {
    const big = 3_000_000_000; // $3,000 in micro-dollars
    await record([
      // Two failed retries (tasks of their own): each spends its whole cost beyond one try.
      failedAt('2026-11-14T10:00:00Z', { agent: 'big', step: 'spend', attemptNumber: 2, costMicros: big }),
      failedAt('2026-11-14T10:00:00Z', { agent: 'big', step: 'spend', attemptNumber: 3, costMicros: big }),
    ]);
    const [row] = await getStepStats(database.db, { from: at('2026-11-14T00:00:00Z'), to: at('2026-11-15T00:00:00Z') });
    expect(row?.retrySpendMicros).toBe(2 * big);
  });

  it('names its window in the view the Overview polls', async () => {
    const view = await getStepStatsView(database.db, '24h', at('2026-11-12T12:00:00Z'));
    expect(view).toMatchObject({ window: '24h', from: '2026-11-11T12:00:00.000Z', to: '2026-11-12T12:00:00.000Z' });
    expect(view.steps.map((row) => row.agent)).toEqual(['alpha', 'beta']);
  });

  it('narrows to one agent when asked', async () => {
    const stats = await getStepStats(database.db, {
      from: at('2026-11-12T00:00:00Z'),
      to: at('2026-11-13T00:00:00Z'),
      agent: 'beta',
    });
    expect(stats.map((row) => row.agent)).toEqual(['beta']);
  });
});
