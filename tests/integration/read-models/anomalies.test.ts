import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getStepAnomalies } from '../../../lib/queries/anomalies';
import {
  BASELINE_DAYS,
  baselineEndFor,
  readStoredBaselines,
} from '../../../packages/engine/src/rollups/anomaly-baselines';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';
import { recordRetryTraffic } from '../../support/retry-traffic';

const database = useTestDatabase();
const now = new Date('2026-11-30T12:00:00Z');
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * `count` attempts of a step, `retries` of them retries, all costing 100, `hoursBack` before now. The retries
 * failed, so each adds its own cost to retry spend (a succeeded one would add its first attempt's, not here).
 */
const day = (agent: string, step: string, hoursBack: number, count: number, retries: number) =>
  recordRetryTraffic(database.db, { agent, step, now, hoursBack, count, retries });

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

  it('reads the baseline the rollup pass stored (a raw recount, late rows included) and sums the rollups once the hour has turned', async () => {
    for (let baselineDay = 1; baselineDay <= 7; baselineDay++) {
      await day('stored', 'spiky', 24 + baselineDay * 24 - 12, 20, 1);
    }
    await day('stored', 'spiky', 6, 20, 10);
    const retentionFloor = new Date(now.getTime() - 30 * DAY_MS);
    await rollUpAttempts(database.db, { now, retentionFloor });
    const end = baselineEndFor(now);
    expect(byStep(await readStoredBaselines(database.db, end))).toEqual(await recountBaselines(end));

    // A late report for an hour of the baseline: the next pass re-rolls that hour and rewrites the baseline.
    await day('stored', 'spiky', 24 + 3 * 24 - 10, 5, 5);
    await rollUpAttempts(database.db, { now, retentionFloor });
    expect(byStep(await readStoredBaselines(database.db, end))).toEqual(await recountBaselines(end));

    const anomalies = await getStepAnomalies(database.db, now);
    expect(anomalies.has('stored/spiky')).toBe(true);
    expect(anomalies).toEqual(await getStepAnomalies(database.db, now, { rawOnly: true }));

    // An hour on, before any pass: what is stored is the previous hour's baseline, so it is not used.
    const later = new Date(now.getTime() + HOUR_MS);
    expect(await readStoredBaselines(database.db, baselineEndFor(later))).toBeNull();
    expect(await getStepAnomalies(database.db, later)).toEqual(
      await getStepAnomalies(database.db, later, { rawOnly: true }),
    );
  });
});

/** Each step's baseline shares, sorted, keyed `agent/step`. */
type Shares = Record<string, number[]>;

function byStep(rows: { agent: string; step: string; shares: number[] }[] | null): Shares {
  expect(rows).not.toBeNull();
  return Object.fromEntries(rows!.map((row) => [`${row.agent}/${row.step}`, [...row.shares].sort()]));
}

/** Each step's retry share on each baseline day with attempts, counted from the raw log one day at a time. */
async function recountBaselines(end: Date): Promise<Shares> {
  const shares: Shares = {};
  for (let dayIndex = 0; dayIndex < BASELINE_DAYS; dayIndex++) {
    const rows = await database.db.execute<{ agent: string; step: string; spend: string; retry_spend: string }>(sql`
      select agent, step, sum(cost_micros)::text as spend,
        coalesce(sum(retry_cost_micros), 0)::text as retry_spend
      from attempts
      where started_at >= ${new Date(end.getTime() - (dayIndex + 1) * DAY_MS).toISOString()}::timestamptz
        and started_at < ${new Date(end.getTime() - dayIndex * DAY_MS).toISOString()}::timestamptz
      group by agent, step`);
    for (const row of rows) {
      const spend = Number(row.spend);
      (shares[`${row.agent}/${row.step}`] ??= []).push(spend === 0 ? 0 : Number(row.retry_spend) / spend);
    }
  }
  for (const list of Object.values(shares)) list.sort();
  return shares;
}
