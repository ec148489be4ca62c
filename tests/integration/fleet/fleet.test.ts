import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { deadLetterFilter } from '../../../packages/engine/src/core/dead-letters/dead-letter-filter-input';
import { countDownstreamEffects } from '../../../lib/fleet/downstreams';
import { startFleet } from '../../../lib/fleet/fleet';
import { flushReplayTallies } from '../../../packages/engine/src/core/keys/replay-tally';
import { listPendingDeadLetters } from '../../../lib/queries/dead-letters';
import { listOpenHolds } from '../../../lib/queries/holds';
import { getDemoSideEffects } from '../../../lib/fleet/side-effects-view';
import { getStepStats } from '../../../lib/queries/step-stats';
import { useApi } from '../../support/api-harness';

/**
 * A fixed number of tasks on the real queue (pg-boss), with faults injected
 * at a fixed seed and timeouts short enough that slow and crashed workers are
 * really redelivered: no side effect may happen twice, and what the console
 * shows must match the fleet's own tally.
 */
const api = useApi();

describe('the demo fleet', () => {
  it('performs each side effect at most once, and the console counts what the fleet did', {
    timeout: 180_000,
  }, async () => {
    const started = new Date();
    const fleet = await startFleet({
      databaseUrl: api.database.url,
      seed: 42,
      timing: { visibilityTimeoutSeconds: 2, keyTtlMs: 3_000, retryDelaySeconds: 1 },
      client: api.client(),
    });
    try {
      const tasks = ['outreach', 'payments', 'publishing', 'research'].flatMap((agent) =>
        Array.from({ length: 8 }, (_, index) => ({ taskId: `fleet-${agent}-${index}`, agent })),
      );
      await fleet.enqueue(tasks);
      await fleet.waitUntilIdle(150_000);
    } finally {
      await fleet.stop();
    }
    const { tally } = fleet;
    const db = api.database.db;

    // At most once: no task's email or publication happened twice, and the ledger deduplicated charges by key.
    const effects = await countDownstreamEffects(db, 'fleet-');
    expect(effects.tasksWithDuplicateEffects).toBe(0);
    expect(effects.emailsSent).toBeLessThanOrEqual(8);
    expect(effects.paymentsCharged).toBeLessThanOrEqual(8);
    expect(effects.pagesPublished).toBeLessThanOrEqual(8);

    // Sub-agents were dispatched, each once, however often their parent's dispatch step was delivered.
    const subJobs = await db.execute<{ task_id: string; jobs: number }>(sql`
      select data->>'taskId' as task_id, count(*)::int as jobs from pgboss.job where data ? 'parentTaskId' group by 1`);
    expect(subJobs.length).toBeGreaterThan(0);
    expect(subJobs.filter((row) => row.jobs > 1)).toEqual([]);

    // The faults really happened: retries were made, and some work was parked for a person.
    const [retries] = await db.execute<{ count: number }>(
      sql`select count(*)::int as count from attempts where attempt_number > 1`,
    );
    expect(retries!.count).toBeGreaterThan(0);
    expect(tally.holdIds.size + tally.deadLetterIds.size).toBeGreaterThan(0);
    expect(tally.completedTaskIds.size).toBeGreaterThan(0);
    // Every task either finished or was parked for a person (a hold, perhaps with a dead letter).
    const [parkedTasks] = await db.execute<{ count: number }>(sql`
      select count(distinct coalesce(dl.task_id, h.item_id))::int as count
      from holds h left join dead_letters dl on h.item_type = 'dead_letter' and dl.id::text = h.item_id
      where h.item_type in ('task', 'dead_letter') or h.item_type = 'key'`);
    expect(tally.completedTaskIds.size + parkedTasks!.count).toBeGreaterThanOrEqual(32);

    // What the console shows equals the fleet's own count.
    const stats = await getStepStats(db, {
      from: new Date(started.getTime() - 3_600_000),
      to: new Date(Date.now() + 60_000),
    });
    expect(stats.reduce((sum, row) => sum + row.attempts, 0)).toBe(tally.attempts);
    const [running] = await db.execute<{ count: number }>(
      sql`select count(*)::int as count from attempts where outcome = 'running'`,
    );
    expect(running!.count).toBe(0);
    expect((await listOpenHolds(db)).length).toBe(tally.holdIds.size);
    expect((await listPendingDeadLetters(db, deadLetterFilter.parse({}))).total).toBe(tally.deadLetterIds.size);
    // The Overview shows the downstream counters and the duplicates Holdfast absorbed.
    // Replays answered from completed keys are added to claim_calls in batches: write the last batch now.
    await flushReplayTallies();
    const sideEffects = await getDemoSideEffects(db);
    expect(sideEffects).toMatchObject({ ...effects, tasksWithDuplicateEffects: 0 });
    expect(sideEffects!.duplicatesAbsorbed).toBeGreaterThanOrEqual(tally.replays);
  });
});
