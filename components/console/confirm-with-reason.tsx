'use client';

import { type ReactNode, useEffect, useId, useRef, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import type { ActionResult } from '@/lib/server/action';
import { refocus, refocusById } from './focus-after-action';

/**
 * A row's irreversible act behind a confirmation with a reason (kept in the audit log): a link-like button
 * opens the form in its place; the form says what will happen, asks why, and sends the action. The server
 * checks the role again. Focus follows the person: to the reason when the form opens, back to the button when
 * it is closed, to the reason again after a refusal, and to the list's heading when the row goes.
 */
export function ConfirmWithReason<Data>({
  opener,
  openerLabel,
  question,
  fields,
  submitLabel,
  pendingLabel,
  action,
  toastOf,
  headingId,
  testId,
  reasonLabel = 'Reason',
  refusedPrefix = 'Not done',
}: {
  /** The button's text, and its accessible name (naming the row). */
  opener: string;
  openerLabel: string;
  /** What confirming does, in a sentence. */
  question: ReactNode;
  /** The hidden fields naming the row. */
  fields: Record<string, string | number>;
  submitLabel: string;
  pendingLabel: string;
  action: (formData: FormData) => Promise<ActionResult<Data>>;
  /** What the toast says once the action succeeded. */
  toastOf: (data: Data) => string;
  /** The list's heading, where focus goes when the row is gone. */
  headingId: string;
  testId: string;
  /** The reason field's label, read by screen readers ("Reason for deleting"). */
  reasonLabel?: string;
  /** How the toast begins when the server refuses ("Not deleted"). */
  refusedPrefix?: string;
}) {
  const toast = useToast();
  const [result, setResult] = useState<ActionResult<Data>>();
  const [pending, startTransition] = useTransition();
  const [confirming, setConfirming] = useState(false);
  const reasonInput = useRef<HTMLInputElement>(null);
  const openButton = useRef<HTMLButtonElement>(null);
  const id = useId();

  // The button and the form replace each other: focus follows, but only once the person has opened it, never on
  // page load.
  const toggled = useRef(false);
  const toggle = (open: boolean) => {
    toggled.current = true;
    setConfirming(open);
  };
  useEffect(() => {
    if (!toggled.current) return;
    if (confirming) reasonInput.current?.focus();
    else refocus(openButton.current);
  }, [confirming]);
  useEffect(() => {
    if (result && !result.ok) refocus(reasonInput.current);
  }, [result]);

  const send = (formData: FormData) =>
    startTransition(async () => {
      const answer = await action(formData);
      setResult(answer);
      if (answer.ok) {
        toast.show(toastOf(answer.data), { tone: 'success' });
        refocusById(headingId);
      } else {
        toast.show(`${refusedPrefix}: ${answer.message}`, { tone: 'error' });
      }
    });

  if (!confirming) {
    return (
      <Button
        ref={openButton}
        variant="danger-link"
        onClick={() => toggle(true)}
        className="text-[12px]"
        aria-label={openerLabel}
      >
        {opener}
      </Button>
    );
  }
  return (
    <form action={send} className="relative flex min-w-0 flex-col gap-1.5 md:min-w-64" data-testid={testId}>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <p className="text-[12px]">{question}</p>
      <Field label={reasonLabel} id={`${id}-reason`} hideLabel>
        <Input ref={reasonInput} name="reason" required placeholder="Why (audited)" size="sm" />
      </Field>
      <span className="flex gap-1.5">
        <Button type="submit" variant="danger" pending={pending} pendingLabel={pendingLabel}>
          {submitLabel}
        </Button>
        <Button onClick={() => toggle(false)}>Keep it</Button>
      </span>
      <FormError result={result} />
    </form>
  );
}
