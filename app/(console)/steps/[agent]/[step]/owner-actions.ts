'use server';

import { removeStepOwner, saveStepOwner } from '@holdfast/engine/core';
import { field, runAction, type ActionResult } from '@/lib/server/action';

/** Saves the owner of the step, or of every step of its agent (`scope` all), as an admin names it. */
export async function saveStepOwnerAction(
  _previous: ActionResult<{ changed: boolean }> | undefined,
  formData: FormData,
) {
  return runAction(async (ctx) => {
    const result = await saveStepOwner(ctx, {
      agent: field(formData, 'agent'),
      step: field(formData, 'scope') === 'agent' ? '*' : field(formData, 'step'),
      owner: field(formData, 'owner'),
      contact: field(formData, 'contact'),
      runbookUrl: field(formData, 'runbookUrl'),
      reason: field(formData, 'reason'),
    });
    return { changed: result.changed };
  });
}

export async function removeStepOwnerAction(
  _previous: ActionResult<{ removed: boolean }> | undefined,
  formData: FormData,
) {
  return runAction(async (ctx) =>
    removeStepOwner(ctx, {
      agent: field(formData, 'agent'),
      step: field(formData, 'scope') === 'agent' ? '*' : field(formData, 'step'),
      reason: field(formData, 'reason'),
    }),
  );
}
