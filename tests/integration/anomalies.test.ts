import { describe, expect, it } from 'vitest';
import { recordAttempt, type RecordAttemptInput } from '../../lib/core';
import { getStepAnomalies } from '../../lib/queries/anomalies';
import { useTestDatabase } from '../support/test-database';

const database = useTestDatabase();
const now = new Date('2026-11-30T12:00:00Z');
const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);

/** `count` attempts of a step, `retries` of them retries, all costing 100, `hoursBack` before now. */
async function day(agent: string, step: string, hoursBack: number, count: number, retries: number) {
  for (let index = 0; index < count; index++) {
    const startedAt = hoursAgo(hoursBack - index * 0.01);
    const report: RecordAttemptInput = {
      taskId: `${step}-${hoursBack}-${index}`,
      agent,
      step,
      attemptNumber: index < retries ? 2 : 1,
      outcome: 'succeeded',
      costMicros: 100,
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 10),
    };
    await recordAttempt({ db: database.db, clock: () => now }, report);
  }
}

describe('getStepAnomalies', () => {
  it('flags a step whose retry share jumped in the last 24 hours, and not a steady one', async () => {
    for (let baselineDay = 1; baselineDay <= 7; baselineDay++) {
      await day('fleet', 'jumpy', 24 + baselineDay * 24 - 12, 20, 1); // 5% retries
      await day('fleet', 'steady', 24 + baselineDay * 24 - 12, 20, 1);
    }
    await day('fleet', 'jumpy', 6, 20, 10); // 50% retries now
    await day('fleet', 'steady', 6, 20, 1);

    const anomalies = await getStepAnomalies(database.db, now);
    expect([...anomalies.keys()]).toEqual(['fleet/jumpy']);
    expect(anomalies.get('fleet/jumpy')).toMatchObject({ recentShare: 0.5, baseline: 0.05 });
  });
});
