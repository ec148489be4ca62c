'use client';

import type { ReactNode } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { useConfirmedAction } from './use-confirmed-action';

type ConfirmedAction = Pick<ReturnType<typeof useConfirmedAction>, 'asking' | 'confirm' | 'cancel' | 'pending'>;

/**
 * The question a confirmed action asks, open while the action holds the form's fields: what will happen, then the
 * reason as typed (it goes to the audit log as shown here).
 */
export function ConfirmAsked({
  action,
  title,
  confirmLabel,
  pendingLabel,
  tone,
  testId,
  children,
}: {
  action: ConfirmedAction;
  title: ReactNode;
  confirmLabel: ReactNode;
  pendingLabel?: ReactNode;
  tone?: 'primary' | 'danger';
  testId: string;
  children: ReactNode;
}) {
  const reason = action.asking?.get('reason');
  return (
    <ConfirmDialog
      open={action.asking !== undefined}
      title={title}
      confirmLabel={confirmLabel}
      tone={tone}
      pending={action.pending}
      pendingLabel={pendingLabel}
      onConfirm={action.confirm}
      onCancel={action.cancel}
      testId={testId}
    >
      {children}
      {typeof reason === 'string' ? <p className="mt-1 [overflow-wrap:anywhere]">Reason: {reason}</p> : null}
    </ConfirmDialog>
  );
}
