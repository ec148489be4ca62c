'use client';

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
      <button
        type="submit"
        formAction={action}
        disabled={busy}
        className={`rounded px-2.5 py-1 text-[12px] font-medium text-on-accent disabled:opacity-60 ${tone === 'danger' ? 'bg-danger' : 'bg-accent'}`}
      >
        {busy ? busyText : confirmText}
      </button>
      <button type="button" onClick={onCancel} className="rounded border border-line px-2 py-1 text-[12px]">
        {cancelText}
      </button>
    </span>
  );
}
