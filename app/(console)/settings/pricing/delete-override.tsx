'use client';

import { useEffect, useId, useRef, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { refocus, refocusById } from '@/components/console/focus-after-action';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import type { ActionResult } from '@/lib/server/action';
import { deleteOverrideAction } from './actions';
import { overrideName } from './pricing-format';

/**
 * Deletes one override after a confirmation with a reason; the server checks the role again. On
 * success the row goes, so focus moves to the section's heading.
 */
export function DeleteOverride({ provider, model, headingId }: { provider: string; model: string; headingId: string }) {
  const toast = useToast();
  const [result, setResult] = useState<ActionResult<{ changed: boolean }>>();
  const [pending, startTransition] = useTransition();
  const [confirming, setConfirming] = useState(false);
  const reasonInput = useRef<HTMLInputElement>(null);
  const openButton = useRef<HTMLButtonElement>(null);
  const id = useId();
  const name = overrideName({ provider, model });
  const shortName = overrideName({ provider, model }, true);

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
      const answer = await deleteOverrideAction(formData);
      setResult(answer);
      if (answer.ok) {
        toast.show(
          answer.data.changed
            ? `Deleted the override for ${shortName}: it is priced by the bundled table again.`
            : `The override for ${shortName} was already deleted.`,
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
        aria-label={`Delete the override for ${name}`}
      >
        Delete…
      </Button>
    );
  }
  return (
    <form action={remove} className="flex min-w-0 flex-col gap-1.5 md:min-w-64" data-testid="delete-override-form">
      <input type="hidden" name="provider" value={provider} />
      <input type="hidden" name="model" value={model} />
      <p className="text-[12px]">
        Delete this override? Calls to this model are then priced by the bundled table, from now on.
      </p>
      <Field label="Reason for deleting" id={`${id}-reason`} hideLabel>
        <Input ref={reasonInput} name="reason" required placeholder="Why (kept in the audit log)" size="sm" />
      </Field>
      <span className="flex gap-1.5">
        <Button type="submit" variant="danger" pending={pending} pendingLabel="Deleting…">
          Delete override
        </Button>
        <Button onClick={() => toggle(false)}>Keep it</Button>
      </span>
      <FormError result={result} />
    </form>
  );
}
