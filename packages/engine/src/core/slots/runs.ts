import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { runs, type Run } from '../../db/schema';
import { agentOfRun } from '../identity/agent-targets';
import { enforceTokenLimits } from '../identity/authorization';
import type { CoreContext } from '../kernel/context';
import { NotFoundError, StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { finishRunInput, runKey, startRunInput } from '@holdfast/protocol/inputs/runs-input';

export { finishRunInput, startRunInput } from '@holdfast/protocol/inputs/runs-input';

/** Starts a run; starting the same run key again (a redelivery) returns the existing run. */
export async function startRun(ctx: CoreContext, input: z.input<typeof startRunInput>): Promise<Run> {
  const run = parseInput(startRunInput, input);
  await enforceTokenLimits(ctx, { agent: run.agent });
  const [created] = await ctx.db.insert(runs).values(run).onConflictDoNothing({ target: runs.runKey }).returning();
  if (created) return created;
  const [existing] = await ctx.db.select().from(runs).where(eq(runs.runKey, run.runKey));
  if (!existing) throw new Error('startRun: conflict without an existing run');
  if (existing.taskId !== run.taskId) {
    throw new StateConflictError(`Run key "${run.runKey}" already belongs to task "${existing.taskId}"`);
  }
  return existing;
}

/** Notes that a run is alive; the stale-lock guard trusts a recent heartbeat. */
export async function heartbeatRun(ctx: CoreContext, input: { runKey: string }): Promise<void> {
  const key = parseInput(runKey, input.runKey);
  await enforceTokenLimits(ctx, () => agentOfRun(ctx.db, key));
  const updated = await ctx.db
    .update(runs)
    .set({ heartbeatAt: sql`now()` })
    .where(and(eq(runs.runKey, key), eq(runs.status, 'running')))
    .returning({ runKey: runs.runKey });
  if (updated.length === 0) throw new NotFoundError(`No running run "${key}"`);
}

/** Ends a run. Idempotent: finishing a finished run again changes nothing. */
export async function finishRun(ctx: CoreContext, input: z.input<typeof finishRunInput>): Promise<void> {
  const { runKey: key, status } = parseInput(finishRunInput, input);
  await enforceTokenLimits(ctx, () => agentOfRun(ctx.db, key));
  const updated = await ctx.db
    .update(runs)
    .set({ status, finishedAt: sql`now()` })
    .where(and(eq(runs.runKey, key), eq(runs.status, 'running')))
    .returning({ runKey: runs.runKey });
  if (updated.length > 0) return;
  const [existing] = await ctx.db.select({ status: runs.status }).from(runs).where(eq(runs.runKey, key));
  if (!existing) throw new NotFoundError(`No run "${key}"`);
}
