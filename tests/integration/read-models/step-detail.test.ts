import { describe, expect, it } from 'vitest';
import { recordAttempt } from '../../../lib/core';
import { getStepDetail } from '../../../lib/queries/step-detail';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
/** The attempts are from 2026-11-20: the library judges their age by this clock, not the machine's. */
const ctx = () => ({ db: database.db, clock: () => new Date('2026-11-21T00:00:00Z') });

describe('getStepDetail', () => {
  it('buckets a step by hour with retries, retry spend and failures by class, and lists its latest failures', async () => {
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
    expect(detail.unit).toBe('hour');
    expect(detail.points).toEqual([
      {
        bucket: '2026-11-20T10:00:00Z',
        attempts: 2,
        retries: 1,
        retryRate: 0.5,
        retrySpendMicros: 20,
        failuresByClass: { timeout: 1, rate_limited: 1 },
      },
      {
        bucket: '2026-11-20T11:00:00Z',
        attempts: 1,
        retries: 1,
        retryRate: 1,
        retrySpendMicros: 30,
        failuresByClass: {},
      },
    ]);
    expect(detail.classesSeen).toEqual(['timeout', 'rate_limited']);
    expect(detail.recentFailures.map((failure) => failure.attemptNumber)).toEqual([2, 1]);
  });
});
