import { describe, expect, it } from 'vitest';
import { recordAttempt } from '../../../packages/engine/src/core';
import { getErrorGroups } from '../../../lib/queries/error-groups';
import { risingGroups, withRiseOnsets } from '../../../lib/queries/rising-groups';
import { aFailedAttempt } from '../../support/attempt-factory';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const now = new Date('2026-11-20T12:30:00.000Z');
const at = (hour: number, minute: number) => new Date(Date.UTC(2026, 10, 20, hour, minute));

async function fail(startedAt: Date, group: { agent: string; step: string; errorText: string }) {
  await recordAttempt(
    { db: database.db, clock: () => now },
    aFailedAttempt({ ...group, errorClass: 'transient', startedAt, finishedAt: new Date(startedAt.getTime() + 500) }),
  );
}

const quota = { agent: 'mailer', step: 'send', errorText: '429: quota exceeded for project 7' };
const refused = { agent: 'billing', step: 'charge', errorText: 'connection refused to 10.0.0.4:5432' };
const steady = { agent: 'search', step: 'query', errorText: '503: index warming up' };

describe('rising error groups on the Overview', () => {
  it('names the groups that rose in the last hour, and when each rise began (five-minute buckets)', async () => {
    // The last hour's window is 11:00-12:30 (whole hours), the one before 09:00-11:00: 24 five-minute buckets.
    // Quota: one failure per bucket before and until 12:00, then six per bucket: 48 against 24 before, a rise
    // that began with the first bucket above 1.5 failures (the earlier rate times 1.5), 12:00.
    for (let minute = 9 * 60; minute < 12 * 60; minute += 5) await fail(at(0, minute), quota);
    for (let minute = 12 * 60; minute < 12 * 60 + 30; minute += 5)
      for (let second = 0; second < 6; second += 1)
        await fail(new Date(at(0, minute).getTime() + second * 1_000), quota);
    // Refused: new in the window, first at 11:47 (its bucket starts at 11:45).
    for (const [hour, minute] of [
      [11, 47],
      [11, 52],
      [12, 14],
    ] as const)
      await fail(at(hour, minute), refused);
    // Steady: the same rate in both windows, not rising.
    for (let minute = 9 * 60; minute < 12 * 60 + 30; minute += 15) await fail(at(0, minute), steady);

    const view = await getErrorGroups(database.db, { window: '1h', now });
    const rising = await withRiseOnsets(database.db, view, risingGroups(view.groups));
    expect(
      rising.map((group) => ({
        step: `${group.agent}/${group.step}`,
        failures: group.failures,
        before: group.previousFailures,
        riseBeganAt: group.riseBeganAt?.toISOString(),
      })),
    ).toEqual([
      { step: 'mailer/send', failures: 48, before: 24, riseBeganAt: '2026-11-20T12:00:00.000Z' },
      { step: 'billing/charge', failures: 3, before: 0, riseBeganAt: '2026-11-20T11:45:00.000Z' },
    ]);
  });
});
