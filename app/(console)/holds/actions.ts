'use server';

import { clearHold, clearHolds, NotFoundError, previewRedrive, reassignHold } from '@holdfast/engine/core';
import { parseRowId } from '@/lib/queries/row-id';
import { field, runAction, type ActionResult } from '@/lib/server/action';

/** The hold's own page, refreshed with the list (only for an id that names one). */
function holdPage(formData: FormData): string[] {
  const id = parseRowId(field(formData, 'holdId'));
  return id === undefined ? [] : [`/holds/${id}`];
}

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
    ['/holds', ...holdPage(formData)],
  );
}

export async function reassignHoldAction(
  _previous: ActionResult<{ changed: boolean }> | undefined,
  formData: FormData,
) {
  return runAction(
    async (ctx) => {
      const { changed } = await reassignHold(ctx, {
        holdId: Number(field(formData, 'holdId')),
        owner: field(formData, 'owner'),
        note: field(formData, 'note'),
      });
      return { changed };
    },
    ['/holds', ...holdPage(formData)],
  );
}

/** The selected holds (checkboxes named holdId anywhere on the page) cleared with one note. */
export async function clearHoldsAction(
  _previous: ActionResult<{ cleared: number; unchanged: number }> | undefined,
  formData: FormData,
) {
  return runAction(
    async (ctx) => {
      const changes = await clearHolds(ctx, {
        holdIds: formData.getAll('holdId').map(Number),
        resolution: field(formData, 'resolution') as 'resume' | 'discard',
        note: field(formData, 'note'),
      });
      const cleared = changes.filter((change) => change.changed).length;
      return { cleared, unchanged: changes.length - cleared };
    },
    ['/holds'],
  );
}

/**
 * What resuming a dead letter's hold will do: resuming it redrives the dead letter, so the form shows the redrive's
 * preview (what its step's key will do, the brakes refusing it, a permanent last failure) before it asks.
 */
export async function previewHoldRedriveAction(deadLetterId: string) {
  return runAction(async (ctx) => {
    const id = parseRowId(deadLetterId);
    if (id === undefined) throw new NotFoundError(`No dead letter ${deadLetterId}`);
    return previewRedrive(ctx, id);
  });
}
