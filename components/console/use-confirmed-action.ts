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
  afterSuccess,
}: {
  action: (formData: FormData) => Promise<ActionResult<Data>>;
  form: RefObject<HTMLFormElement | null>;
  headingId: string;
  after: 'row' | 'heading';
  /** What the toast says on success (an answer that changed nothing may say so in the `info` tone). */
  succeeded: (data: Data, fields: FormData) => string | { text: string; tone: 'success' | 'info' };
  /** How the toast begins on a refusal ("lock-1 not released"), before the server's message. */
  refused: string;
  /** What else a success does before focus moves (a form that stays is emptied, say). */
  afterSuccess?: (data: Data) => void;
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
      const said = succeeded(answer.data, fields);
      const { text, tone } = typeof said === 'string' ? { text: said, tone: 'success' as const } : said;
      toast.show(text, { tone });
      afterSuccess?.(answer.data);
      if (focusRow) focusRow();
      else focusAfterDialogs(() => document.getElementById(headingId));
    });
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAsking(new FormData(event.currentTarget));
  };

  return { asking, submit, confirm, cancel: () => setAsking(undefined), pending, result };
}
