'use server';

import { removeStepPolicy, saveStepPolicy } from '@/lib/core';
import { field, runAction, type ActionResult } from '@/lib/server/action';

/** A number field left blank leaves that part of the policy as the agent sends it. */
function optionalNumber(formData: FormData, name: string): number | undefined {
  const text = field(formData, name).trim();
  return text === '' ? undefined : Number(text);
}

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
      maxAttempts: optionalNumber(formData, 'maxAttempts'),
      retriedClasses: field(formData, 'classesOverridden') === 'on' ? classes : undefined,
      baseDelayMs: optionalNumber(formData, 'baseDelayMs'),
      maxDelayMs: optionalNumber(formData, 'maxDelayMs'),
      retryAllowance: optionalNumber(formData, 'retryAllowance'),
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
