'use client';

import { ConfirmWithReason } from '@/components/console/confirm-with-reason';
import { deleteToolControlAction } from './actions';
import { controlName } from './control-format';

/** Removes one control after a confirmation with a reason: the gateways use their own options for it again. */
export function DeleteToolControl({ server, tool, headingId }: { server: string; tool: string; headingId: string }) {
  const name = controlName(server, tool);
  return (
    <ConfirmWithReason
      opener="Remove…"
      openerLabel={`Remove the controls of ${name}`}
      question="Remove these controls? The gateways in front of the server use their own options for it again, from their next report (within 30 seconds)."
      fields={{ server, tool }}
      reasonLabel="Reason for removing"
      submitLabel="Remove controls"
      pendingLabel="Removing…"
      refusedPrefix="Not removed"
      action={deleteToolControlAction}
      toastOf={({ changed }) =>
        changed ? `Removed the controls of ${name}.` : `The controls of ${name} were already removed.`
      }
      headingId={headingId}
      testId="delete-tool-control-form"
    />
  );
}
