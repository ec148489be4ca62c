import { eq, sql } from 'drizzle-orm';
import {
  type Actor,
  acquireSlot,
  type CoreContext,
  ensureTaskBudget,
  finishRun,
  recordEvidence,
  runStep,
  StepError,
  startRun,
} from '@holdfast/engine/core';
import { deadLetters, slotLocks, taskBudgets } from '@holdfast/engine/db/schema';

const demoAgent: Actor = { type: 'agent', id: 'demo-fleet', scopes: ['ingest'] };

/** A task idle longer than the freeze sweep allows (3 days): its first pass after the start freezes it for growth. */
const IDLE_TASK = 'onboarding-5120';
const IDLE_DAYS = 4;

/**
 * Work that waits for a person from the first minutes of a demo, so each journey can be walked at once: an idle
 * task the freeze sweep parks with a frozen hold, a send that failed for good on a template that does not exist
 * (a dead letter whose payload must be edited before it is redriven), and a publish lock its crashed run left
 * behind with evidence of a half-done side effect (the sweeper will not release it; a person checks, then releases
 * it over the guards). The retry-share anomaly is in the seeded history (seed-attempts.ts). Seeded once, on an
 * empty log of dead letters; returns how many it made.
 */
export async function seedDemoJourneysIfEmpty(ctx: CoreContext): Promise<number> {
  const [existing] = await ctx.db.select({ any: sql<number>`1` }).from(deadLetters).limit(1);
  if (existing) return 0;
  await ensureTaskBudget(ctx.db, { taskId: IDLE_TASK, agent: 'outreach', owner: 'team:growth' });
  await ctx.db
    .update(taskBudgets)
    .set({ updatedAt: sql`now() - make_interval(days => ${IDLE_DAYS})` })
    .where(eq(taskBudgets.taskId, IDLE_TASK));
  await runStep(
    { db: ctx.db, actor: demoAgent },
    {
      taskId: 'newsletter-0412',
      agent: 'outreach',
      owner: 'team:growth',
      step: 'send_email',
      queue: 'outreach',
      content: { template: 'spring-sale', audience: 'eu-customers' },
    },
    async () => {
      throw new StepError(
        'permanent',
        '400 Bad Request: template "spring-sale" does not exist (did you mean "spring-sale-2026"?)',
      );
    },
  );
  await seedStaleLock(ctx);
  return 3;
}

/** The lock a person releases: its run crashed after it asked the CDN to purge, and its time to live is long past. */
async function seedStaleLock(ctx: CoreContext): Promise<void> {
  const asAgent = { db: ctx.db, actor: demoAgent };
  const runKey = 'publish-run-7731';
  const slot = 'publish:pricing-page-eu';
  await startRun(asAgent, { runKey, taskId: 'pricing-page-eu-0931', agent: 'publishing' });
  const lock = await acquireSlot(asAgent, { slot, runKey, ttlMs: 60_000 });
  if (lock.outcome !== 'acquired') return;
  await recordEvidence(asAgent, {
    slot,
    runKey,
    fencingToken: lock.fencingToken,
    ref: 'CDN purge 5f2a requested for /eu/pricing; version 42 not confirmed live',
  });
  await finishRun(asAgent, { runKey, status: 'failed' });
  await ctx.db.update(slotLocks).set({ expiresAt: sql`now() - interval '20 minutes'` }).where(eq(slotLocks.slot, slot));
}
