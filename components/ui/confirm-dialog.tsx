'use client';

import type { ReactNode } from 'react';
import { Button } from './button';
import { Dialog } from './dialog';

/**
 * "Are you sure?" as a modal: a title, what will happen, a confirm button
 * (danger tone for what cannot be undone) and a cancel button. Focus starts
 * on Cancel, so a stray Enter never confirms.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = 'Cancel',
  tone = 'primary',
  pending = false,
  pendingLabel,
  onConfirm,
  onCancel,
  testId,
}: {
  open: boolean;
  title: ReactNode;
  children?: ReactNode;
  confirmLabel: ReactNode;
  cancelLabel?: ReactNode;
  tone?: 'primary' | 'danger';
  pending?: boolean;
  pendingLabel?: ReactNode;
  onConfirm: () => void;
  onCancel: () => void;
  testId?: string;
}) {
  return (
    <Dialog open={open} onClose={onCancel} title={title} testId={testId}>
      {children ? <div className="text-[13px] text-muted">{children}</div> : null}
      <div className="mt-4 flex justify-end gap-2">
        <Button size="md" onClick={onCancel} data-initial-focus>
          {cancelLabel}
        </Button>
        <Button size="md" variant={tone} pending={pending} pendingLabel={pendingLabel} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}
