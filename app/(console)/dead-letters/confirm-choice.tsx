'use client';

import { Button } from '@/components/ui/button';

/**
 * "Are you sure?" inside a row's form: a question, a submit button that runs
 * `action` with the form (so the form's own checks, such as a required reason,
 * still apply), and a way back.
 */
export function ConfirmChoice({
  label,
  question,
  confirmText,
  busyText,
  busy,
  tone,
  action,
  onCancel,
  cancelText,
}: {
  label: string;
  question: string;
  confirmText: string;
  busyText: string;
  busy: boolean;
  tone: 'danger' | 'accent';
  action: (formData: FormData) => void;
  onCancel: () => void;
  cancelText: string;
}) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset inside the row's form would restyle it; the group role names it the same way.
    <span className="flex flex-wrap items-center gap-1.5" role="group" aria-label={label}>
      <span className="text-[12px]">{question}</span>
      <Button
        type="submit"
        formAction={action}
        variant={tone === 'danger' ? 'danger' : 'primary'}
        pending={busy}
        pendingLabel={busyText}
      >
        {confirmText}
      </Button>
      <Button onClick={onCancel}>{cancelText}</Button>
    </span>
  );
}
