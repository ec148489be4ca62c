import { describe, expect, it } from 'vitest';
import { recordAttempt } from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { parseStepsView } from '../../../lib/filters/steps';
import { inOneSnapshot } from '../../../lib/queries/one-snapshot';
import { getStepsPage } from '../../../lib/queries/steps-page';
import { aFailedAttempt } from '../../support/attempt-factory';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase({ maxConnections: 4 });
const classes = ['transient', 'timeout', 'rate_limited'] as const;

describe('one read per page', () => {
  it("the Steps page's failures always equal the sum of their classes while agents write", async () => {
    // Agents keep failing on two steps from connections of their own while the page is read again and again.
    const writers = connectDatabase(database.url, { maxConnections: 3 });
    let writing = true;
    let written = 0;
    const write = async (writer: number) => {
      while (writing) {
        const startedAt = new Date(Date.now() - 60_000);
        await recordAttempt(
          { db: writers.db },
          aFailedAttempt({
            agent: 'snapshot',
            step: `step_${writer % 2}`,
            errorClass: classes[written % classes.length],
            errorText: `failure ${written}`,
            startedAt,
            finishedAt: new Date(startedAt.getTime() + 100),
          }),
        );
        written += 1;
      }
    };
    const writing3 = [0, 1, 2].map(write);
    try {
      let reads = 0;
      while (reads < 40) {
        const now = new Date();
        const page = await inOneSnapshot(database.db, (snapshot) =>
          getStepsPage(snapshot, parseStepsView({ window: '1h', agent: 'snapshot' }, now), undefined, now),
        );
        for (const row of page.steps) {
          const byClass = Object.values(row.failuresByClass).reduce((sum, count) => sum + (count ?? 0), 0);
          expect(
            byClass,
            `${row.step}: ${row.failures} failures, by class ${JSON.stringify(row.failuresByClass)}`,
          ).toBe(row.failures);
        }
        reads += 1;
      }
      // The writers really wrote during the reads.
      expect(written).toBeGreaterThan(40);
    } finally {
      writing = false;
      await Promise.all(writing3);
      await writers.close();
    }
  });
});
