'use client';

import { ConfirmWithReason } from '@/components/console/confirm-with-reason';
import { deleteToolControlAction } from './actions';
import { controlName } from './control-format';

/** What the confirmation says and its buttons are called. */
const WORDING = {
  opener: 'Remove…',
  question:
    'Remove these controls? The gateways in front of the server use their own options for it again, from their next report (within 30 seconds).',
  reasonLabel: 'Reason for removing',
  submitLabel: 'Remove controls',
  pendingLabel: 'Removing…',
  refusedPrefix: 'Not removed',
};

/** Removes one control after a confirmation with a reason: the gateways use their own options for it again. */
export function DeleteToolControl({ server, tool }: { server: string; tool: string }) {
  const name = controlName(server, tool);
  const toastOf = ({ changed }: { changed: boolean }) =>
    changed ? `Removed the controls of ${name}.` : `The controls of ${name} were already removed.`;
  return (
    <ConfirmWithReason
      {...WORDING}
      openerLabel={`Remove the controls of ${name}`}
      fields={{ server, tool }}
      action={deleteToolControlAction}
      toastOf={toastOf}
      headingId="tool-controls-heading"
      testId="delete-tool-control-form"
    />
  );
}
