'use server';

import { forceReleaseSlot, overrideReleaseSlot, setKillSwitch } from '@holdfast/engine/core';
import { field, runAction, type ActionResult } from '@/lib/server/action';

export async function forceReleaseAction(
  _previous: ActionResult<{ released: boolean }> | undefined,
  formData: FormData,
) {
  return runAction(
    async (ctx) => {
      const result = await forceReleaseSlot(ctx, {
        slot: field(formData, 'slot'),
        fencingToken: Number(field(formData, 'fencingToken')),
        reason: field(formData, 'reason'),
      });
      return { released: result.released };
    },
    ['/locks'],
  );
}

/** An admin's release of a stale lock its guards refuse, with a reason (the audit record names the guards). */
export async function overrideReleaseAction(
  _previous: ActionResult<{ released: boolean }> | undefined,
  formData: FormData,
) {
  return runAction(
    async (ctx) => {
      const result = await overrideReleaseSlot(ctx, {
        slot: field(formData, 'slot'),
        fencingToken: Number(field(formData, 'fencingToken')),
        reason: field(formData, 'reason'),
      });
      return { released: result.released };
    },
    ['/locks'],
  );
}

export async function setKillSwitchAction(_previous: ActionResult<null> | undefined, formData: FormData) {
  return runAction(
    async (ctx) => {
      await setKillSwitch(ctx, {
        name: 'stale_lock_release',
        engaged: field(formData, 'engaged') === 'true',
        reason: field(formData, 'reason'),
      });
      return null;
    },
    ['/locks'],
  );
}
