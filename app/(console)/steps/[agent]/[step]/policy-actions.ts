'use server';

import { type PolicySimulation, removeStepPolicy, saveStepPolicy, simulateRetryPolicy } from '@holdfast/engine/core';
import { getEnvironment } from '@holdfast/engine/env';
import { field, optionalNumberField, runAction, type ActionResult } from '@/lib/server/action';

export async function saveStepPolicyAction(
  _previous: ActionResult<{ changed: boolean }> | undefined,
  formData: FormData,
) {
  return runAction(async (ctx) => {
    // All classes ticked is the same as no override of the classes.
    const classes = formData.getAll('retriedClasses').map(String);
    const result = await saveStepPolicy(ctx, {
      agent: field(formData, 'agent'),
      step: field(formData, 'step'),
      maxAttempts: optionalNumberField(formData, 'maxAttempts'),
      retriedClasses: field(formData, 'classesOverridden') === 'on' ? classes : undefined,
      baseDelayMs: optionalNumberField(formData, 'baseDelayMs'),
      maxDelayMs: optionalNumberField(formData, 'maxDelayMs'),
      retryAllowance: optionalNumberField(formData, 'retryAllowance'),
      reason: field(formData, 'reason'),
    });
    return { changed: result.changed };
  });
}

export async function removeStepPolicyAction(
  _previous: ActionResult<{ removed: boolean }> | undefined,
  formData: FormData,
) {
  return runAction(async (ctx) =>
    removeStepPolicy(ctx, {
      agent: field(formData, 'agent'),
      step: field(formData, 'step'),
      reason: field(formData, 'reason'),
    }),
  );
}

const SIMULATION_WINDOWS_DAYS = { '24h': 1, '7d': 7, '30d': 30 } as const;

/** Replays the step's raw attempts over the chosen window (capped to the raw retention) under the policy in the form. */
export async function simulatePolicyAction(_previous: ActionResult<PolicySimulation> | undefined, formData: FormData) {
  return runAction(async (ctx) => {
    const retentionDays = getEnvironment().HOLDFAST_ATTEMPT_RETENTION_DAYS;
    const now = ctx.clock?.() ?? new Date();
    const chosen = SIMULATION_WINDOWS_DAYS[field(formData, 'window') as keyof typeof SIMULATION_WINDOWS_DAYS] ?? 7;
    // A minute inside the retention, so that the window's start is never refused for a moment's drift.
    const days = Math.min(chosen, retentionDays);
    const from = new Date(now.getTime() - days * 86_400_000 + (days === retentionDays ? 60_000 : 0));
    return simulateRetryPolicy(
      ctx,
      {
        agent: field(formData, 'agent'),
        step: field(formData, 'step'),
        from,
        to: now,
        maxAttempts: optionalNumberField(formData, 'maxAttempts') as number,
        retriedClasses: formData.getAll('retriedClasses').map(String),
      },
      { rawRetentionDays: retentionDays },
    );
  });
}
