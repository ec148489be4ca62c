'use client';

import { ConfirmWithReason } from '@/components/console/confirm-with-reason';
import { deleteOverrideAction } from './actions';
import { overrideName } from './pricing-format';

/** Deletes one negotiated price after a confirmation with a reason (ConfirmWithReason). */
export function DeleteOverride({ provider, model, headingId }: { provider: string; model: string; headingId: string }) {
  const shortName = overrideName({ provider, model }, true);
  return (
    <ConfirmWithReason
      opener="Delete…"
      openerLabel={`Delete the override for ${overrideName({ provider, model })}`}
      question="Delete this override? Calls to this model are then priced by the bundled table, from now on."
      fields={{ provider, model }}
      reasonLabel="Reason for deleting"
      submitLabel="Delete override"
      pendingLabel="Deleting…"
      refusedPrefix="Not deleted"
      action={deleteOverrideAction}
      toastOf={({ changed }) =>
        changed
          ? `Deleted the override for ${shortName}: it is priced by the bundled table again.`
          : `The override for ${shortName} was already deleted.`
      }
      headingId={headingId}
      testId="delete-override-form"
    />
  );
}
