'use server';

import { deleteRetryPool, saveRetryPool } from '@holdfast/engine/core';
import { type ActionResult, field, numberFrom, runAction } from '@/lib/server/action';

/** The pages that show pools: this one, the Steps page's badges and the Overview's refusals. */
const SHOWN_ON = ['/settings/retry-pools', '/steps', '/'];

export interface PoolFormValues {
  agent: string;
  step: string;
  budgetPercent: string;
  minRetriesPerSecond: string;
  windowSeconds: string;
  reason: string;
}

export interface SavePoolState {
  result: ActionResult<{ changed: boolean; created: boolean }>;
  /** What was submitted, so a refused form comes back as it was typed. */
  values: PoolFormValues;
}

/** Adds or changes the pool of (agent, step); admins only, the library checks and validates. */
export async function savePoolAction(_previous: SavePoolState | undefined, formData: FormData): Promise<SavePoolState> {
  const values: PoolFormValues = {
    agent: field(formData, 'agent'),
    step: field(formData, 'step'),
    budgetPercent: field(formData, 'budgetPercent'),
    minRetriesPerSecond: field(formData, 'minRetriesPerSecond'),
    windowSeconds: field(formData, 'windowSeconds'),
    reason: field(formData, 'reason'),
  };
  const result = await runAction(async (ctx) => {
    const { changed, created } = await saveRetryPool(ctx, {
      agent: values.agent,
      // A blank step means every step of the agent.
      step: values.step.trim() === '' ? undefined : values.step,
      budgetPercent: numberFrom(values.budgetPercent) as number,
      minRetriesPerSecond: numberFrom(values.minRetriesPerSecond) as number,
      windowSeconds: numberFrom(values.windowSeconds) as number,
      reason: values.reason,
    });
    return { changed, created };
  }, SHOWN_ON);
  return { result, values };
}

/** Deletes a pool, with a reason; a second delete answers changed: false. */
export async function deletePoolAction(_previous: ActionResult<{ changed: boolean }> | undefined, formData: FormData) {
  return runAction(
    (ctx) => deleteRetryPool(ctx, { poolId: Number(field(formData, 'poolId')), reason: field(formData, 'reason') }),
    SHOWN_ON,
  );
}
