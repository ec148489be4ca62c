'use client';

import { useEffect, useId, useRef, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import type { ActionResult } from '@/lib/server/action';
import { refocus, refocusById } from '@/components/console/focus-after-action';
import { deletePoolAction } from './actions';

/**
 * Deletes one pool after a confirmation with a reason; the server checks the
 * role again. On success the row goes, so focus moves to the list's heading.
 */
export function DeletePool({ poolId, scope, headingId }: { poolId: number; scope: string; headingId: string }) {
  const toast = useToast();
  const [result, setResult] = useState<ActionResult<{ changed: boolean }>>();
  const [pending, startTransition] = useTransition();
  const [confirming, setConfirming] = useState(false);
  const reasonInput = useRef<HTMLInputElement>(null);
  const openButton = useRef<HTMLButtonElement>(null);
  const id = useId();

  // The button and the form replace each other: focus follows (to the reason, or back to the
  // button), but only once the person has opened it, never on page load.
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

  // A refused delete keeps the form: focus goes to the reason, to try again.
  useEffect(() => {
    if (result && !result.ok) refocus(reasonInput.current);
  }, [result]);

  const remove = (formData: FormData) =>
    startTransition(async () => {
      const answer = await deletePoolAction(undefined, formData);
      setResult(answer);
      if (answer.ok) {
        toast.show(
          answer.data.changed ? `Deleted the pool of ${scope}.` : `The pool of ${scope} was already deleted.`,
          { tone: 'success' },
        );
        refocusById(headingId);
      } else {
        toast.show(`Not deleted: ${answer.message}`, { tone: 'error' });
      }
    });

  if (!confirming) {
    return (
      <Button
        ref={openButton}
        variant="danger-link"
        onClick={() => toggle(true)}
        className="text-[12px]"
        aria-label={`Delete the pool of ${scope}`}
      >
        Delete…
      </Button>
    );
  }
  return (
    <form action={remove} className="relative flex min-w-0 flex-col gap-1.5 md:min-w-64" data-testid="delete-pool-form">
      <input type="hidden" name="poolId" value={poolId} />
      <p className="text-[12px]">
        Delete the pool of {scope}? Its steps&apos; retries are then limited only by each task&apos;s allowance.
      </p>
      <Field label="Reason for deleting" id={`${id}-reason`} hideLabel>
        <Input ref={reasonInput} name="reason" required placeholder="Why (kept in the audit log)" size="sm" />
      </Field>
      <span className="flex gap-1.5">
        <Button type="submit" variant="danger" pending={pending} pendingLabel="Deleting…">
          Delete pool
        </Button>
        <Button onClick={() => toggle(false)}>Keep it</Button>
      </span>
      <FormError result={result} />
    </form>
  );
}
