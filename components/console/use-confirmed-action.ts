'use client';

import { type FormEvent, type RefObject, useState, useTransition } from 'react';
import { useToast } from '@/components/ui/toast';
import type { ActionResult } from '@/lib/server/action';
import { focusAfterDialogs, planFocusAfterRow } from './focus-after-action';

/**
 * A form whose submit asks first (a ConfirmDialog open while `asking` holds the form's fields), then sends the
 * server action, announces the answer and moves focus: on to the next row's action when the row may go
 * (`after: 'row'`), or to the list's heading once the dialog is gone (`after: 'heading'`). A refusal keeps the
 * form and its fields, and the dialog closes either way.
 */
export function useConfirmedAction<Data>({
  action,
  form,
  headingId,
  after,
  succeeded,
  refused,
}: {
  action: (formData: FormData) => Promise<ActionResult<Data>>;
  form: RefObject<HTMLFormElement | null>;
  headingId: string;
  after: 'row' | 'heading';
  /** What the toast says on success. */
  succeeded: (data: Data) => string;
  /** How the toast begins on a refusal ("lock-1 not released"), before the server's message. */
  refused: string;
}) {
  const toast = useToast();
  const [result, setResult] = useState<ActionResult<Data>>();
  const [pending, startTransition] = useTransition();
  const [asking, setAsking] = useState<FormData>();

  const confirm = () => {
    if (!asking) return;
    const fields = asking;
    const focusRow = after === 'row' ? planFocusAfterRow(form.current, headingId) : undefined;
    startTransition(async () => {
      const answer = await action(fields);
      startTransition(() => {
        setResult(answer);
        setAsking(undefined);
      });
      if (!answer.ok) {
        toast.show(`${refused}: ${answer.message}`, { tone: 'error' });
        return;
      }
      toast.show(succeeded(answer.data), { tone: 'success' });
      if (focusRow) focusRow();
      else {
        form.current?.reset();
        focusAfterDialogs(() => document.getElementById(headingId));
      }
    });
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAsking(new FormData(event.currentTarget));
  };

  return { asking, submit, confirm, cancel: () => setAsking(undefined), pending, result };
}
