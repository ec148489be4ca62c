'use client';

import { ConfirmWithReason } from '@/components/console/confirm-with-reason';
import { deleteBudgetAction } from './actions';

const WORDING = {
  opener: 'Delete…',
  question: "Delete this budget? Its work is no longer limited by it, from now on, and its periods' figures go.",
  reasonLabel: 'Reason for deleting',
  submitLabel: 'Delete budget',
  pendingLabel: 'Deleting…',
  refusedPrefix: 'Not deleted',
};

/** Deletes one budget after a confirmation with a reason. */
export function DeleteBudget({ name }: { name: string }) {
  return (
    <ConfirmWithReason
      {...WORDING}
      openerLabel={`Delete the budget ${name}`}
      fields={{ name }}
      action={deleteBudgetAction}
      toastOf={({ changed }) => (changed ? `Deleted the budget ${name}.` : `The budget ${name} was already deleted.`)}
      headingId="budgets-title"
      testId="delete-budget-form"
    />
  );
}
