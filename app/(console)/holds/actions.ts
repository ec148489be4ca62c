'use server';

import { clearHold } from '@/lib/core';
import { field, runAction, type ActionResult } from '@/lib/server/action';

export async function clearHoldAction(_previous: ActionResult<{ changed: boolean }> | undefined, formData: FormData) {
  return runAction(
    async (ctx) => {
      const { changed } = await clearHold(ctx, {
        holdId: Number(field(formData, 'holdId')),
        resolution: field(formData, 'resolution') as 'resume' | 'discard',
        note: field(formData, 'note'),
      });
      return { changed };
    },
    ['/holds'],
  );
}
