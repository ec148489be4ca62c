import { recordAttempt } from '../../packages/engine/src/core';
import type { Database } from '../../packages/engine/src/db/client';

/**
 * `count` attempts of agent/step costing 100 each, `retries` of them retries, spread over the hour `hoursBack`
 * before `now`. The retries failed, so each one's cost is retry spend (a succeeded retry would add its first
 * attempt's, none here).
 */
export async function recordRetryTraffic(
  db: Database,
  {
    agent,
    step,
    now,
    hoursBack,
    count,
    retries,
  }: {
    agent: string;
    step: string;
    now: Date;
    hoursBack: number;
    count: number;
    retries: number;
  },
) {
  for (let index = 0; index < count; index++) {
    const startedAt = new Date(now.getTime() - (hoursBack - index * 0.01) * 3_600_000);
    const failed = index < retries;
    await recordAttempt(
      { db, clock: () => now },
      {
        taskId: `${step}-${hoursBack}-${index}`,
        agent,
        step,
        attemptNumber: failed ? 2 : 1,
        ...(failed
          ? { outcome: 'failed' as const, errorClass: 'transient' as const, errorText: '503 from the provider' }
          : { outcome: 'succeeded' as const }),
        costMicros: 100,
        startedAt,
        finishedAt: new Date(startedAt.getTime() + 10),
      },
    );
  }
}
