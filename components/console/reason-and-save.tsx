import Link from 'next/link';
import type { Ref } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { type FailedAction, FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';

/**
 * A settings form's last row: the reason every change needs (kept in the audit log), the save button, and a way
 * back when the form edits an existing row; under it, why the last save was refused.
 */
export function ReasonAndSave({
  idPrefix,
  placeholder,
  defaultValue,
  error,
  saveLabel,
  pending,
  saveButton,
  cancelHref,
  result,
}: {
  /** The fields' ids and test ids begin with it (`<prefix>-reason`, `<prefix>-error-reason`). */
  idPrefix: string;
  placeholder: string;
  defaultValue: string;
  error?: string[];
  saveLabel: string;
  pending: boolean;
  saveButton: Ref<HTMLButtonElement>;
  cancelHref?: string;
  /** The save's last answer: a refusal is said under the row (a refused field's own error stands beside it). */
  result?: { ok: true } | (FailedAction & { code: string });
}) {
  return (
    <>
      <div className="flex flex-wrap items-end gap-3">
        <div className="w-full sm:w-auto sm:min-w-56 sm:flex-1">
          <Field
            id={`${idPrefix}-reason`}
            label="Reason (kept in the audit log)"
            error={error}
            errorTestId={`${idPrefix}-error-reason`}
          >
            <Input
              name="reason"
              required
              defaultValue={defaultValue}
              placeholder={placeholder}
              onSurface
              className="w-full"
            />
          </Field>
        </div>
        <Button ref={saveButton} type="submit" variant="primary" size="md" pending={pending} pendingLabel="Saving…">
          {saveLabel}
        </Button>
        {cancelHref ? (
          <Link href={cancelHref} className="py-1.5 text-[13px] text-accent hover:underline">
            Cancel
          </Link>
        ) : null}
      </div>
      <FormError result={result}>
        {result?.ok === false && result.code === 'INVALID_INPUT' ? 'Check the fields marked above.' : null}
      </FormError>
    </>
  );
}
