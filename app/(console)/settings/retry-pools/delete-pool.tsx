'use client';

import { ConfirmWithReason } from '@/components/console/confirm-with-reason';
import { deletePoolAction } from './actions';

/** Deletes one retry pool after a confirmation with a reason (ConfirmWithReason). */
export function DeletePool({ poolId, scope, headingId }: { poolId: number; scope: string; headingId: string }) {
  return (
    <ConfirmWithReason
      opener="Delete…"
      openerLabel={`Delete the pool of ${scope}`}
      question={`Delete the pool of ${scope}? Its steps' retries are then limited only by each task's allowance.`}
      fields={{ poolId }}
      reasonLabel="Reason for deleting"
      submitLabel="Delete pool"
      pendingLabel="Deleting…"
      refusedPrefix="Not deleted"
      action={(formData) => deletePoolAction(undefined, formData)}
      toastOf={({ changed }) =>
        changed ? `Deleted the pool of ${scope}.` : `The pool of ${scope} was already deleted.`
      }
      headingId={headingId}
      testId="delete-pool-form"
    />
  );
}
