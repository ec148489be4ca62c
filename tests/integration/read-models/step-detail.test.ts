import { describe, expect, it } from 'vitest';
import { recordAttempt } from '../../../packages/engine/src/core';
import { getStepDetail } from '../../../lib/queries/step-detail';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
/** The attempts are from 2026-11-20: the library judges their age by this clock, not the machine's. */
const ctx = () => ({ db: database.db, clock: () => new Date('2026-11-21T00:00:00Z') });

describe('getStepDetail', () => {
  it('buckets a step by quarter hour over a day with retries, retry spend and failures by class, and lists its latest failures', async () => {
    const at = (iso: string) => ({ startedAt: new Date(iso), finishedAt: new Date(new Date(iso).getTime() + 100) });
    const base = { agent: 'research', step: 'call_model' };
    await recordAttempt(ctx(), {
      ...base,
      taskId: 't1',
      attemptNumber: 1,
      outcome: 'failed',
      errorClass: 'timeout',
      errorText: 'slow',
      costMicros: 10,
      ...at('2026-11-20T10:05:00Z'),
    });
    await recordAttempt(ctx(), {
      ...base,
      taskId: 't1',
      attemptNumber: 2,
      outcome: 'failed',
      errorClass: 'rate_limited',
      errorText: '429',
      costMicros: 20,
      ...at('2026-11-20T10:55:00Z'),
    });
    await recordAttempt(ctx(), {
      ...base,
      taskId: 't1',
      attemptNumber: 3,
      outcome: 'succeeded',
      costMicros: 30,
      ...at('2026-11-20T11:10:00Z'),
    });

    const detail = await getStepDetail(database.db, {
      ...base,
      from: new Date('2026-11-20T00:00:00Z'),
      to: new Date('2026-11-21T00:00:00Z'),
    });
    expect(detail.unit).toBe('15min');
    expect(detail.points).toEqual([
      {
        bucket: '2026-11-20T10:00:00Z',
        attempts: 1,
        retries: 0,
        retryRate: 0,
        retrySpendMicros: 0,
        failuresByClass: { timeout: 1 },
      },
      {
        bucket: '2026-11-20T10:45:00Z',
        attempts: 1,
        retries: 1,
        retryRate: 1,
        retrySpendMicros: 20,
        failuresByClass: { rate_limited: 1 },
      },
      {
        bucket: '2026-11-20T11:00:00Z',
        attempts: 1,
        retries: 1,
        retryRate: 1,
        // The succeeded retry adds what attempt 1 wasted (10); the failed attempt 2 added its own 20, so the
        // execution's retry spend is 60 spent - 30 for the one try that worked = 30.
        retrySpendMicros: 10,
        failuresByClass: {},
      },
    ]);
    expect(detail.classesSeen).toEqual(['timeout', 'rate_limited']);
    expect(detail.recentFailures.map((failure) => failure.attemptNumber)).toEqual([2, 1]);

    // An hour is drawn in single minutes from the raw log: when a failure began shows to the minute.
    const hour = await getStepDetail(database.db, {
      ...base,
      from: new Date('2026-11-20T10:30:00Z'),
      to: new Date('2026-11-20T11:30:00Z'),
    });
    expect(hour.unit).toBe('1min');
    expect(hour.points.map((point) => [point.bucket, point.attempts, point.retrySpendMicros])).toEqual([
      ['2026-11-20T10:55:00Z', 1, 20],
      ['2026-11-20T11:10:00Z', 1, 10],
    ]);
    // Two hours, in five minutes (rollups and raw minutes): the same figures in coarser buckets.
    const twoHours = await getStepDetail(database.db, {
      ...base,
      from: new Date('2026-11-20T09:30:00Z'),
      to: new Date('2026-11-20T11:30:00Z'),
    });
    expect(twoHours.unit).toBe('5min');
    expect(twoHours.points.map((point) => [point.bucket, point.attempts])).toEqual([
      ['2026-11-20T10:05:00Z', 1],
      ['2026-11-20T10:55:00Z', 1],
      ['2026-11-20T11:10:00Z', 1],
    ]);

    // A day reaching back past where the raw log (and its five-minute rollups) begins is drawn in hours.
    const pastMinutes = await getStepDetail(database.db, {
      ...base,
      from: new Date('2026-11-20T00:00:00Z'),
      to: new Date('2026-11-21T00:00:00Z'),
      minuteFloor: new Date('2026-11-20T06:00:00Z'),
    });
    expect(pastMinutes.unit).toBe('hour');
    expect(pastMinutes.points.map((point) => [point.bucket, point.attempts, point.retries])).toEqual([
      ['2026-11-20T10:00:00Z', 2, 1],
      ['2026-11-20T11:00:00Z', 1, 1],
    ]);
  });
});
