'use client';

import { type FormEvent, useActionState, useEffect, useRef, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { useToast } from '@/components/ui/toast';
import type { ActionResult } from '@/lib/server/action';
import { clearHoldsAction, reassignHoldAction } from './actions';
import { focusAfterDialogs, planFocusAfterRow } from '@/components/console/focus-after-action';

/**
 * Give a hold to another person or team, with a note. The outcome is
 * announced; focus returns to the row's "Reassign…", or, when the new owner
 * takes the row out of this filtered list, to the next row's action.
 */
export function ReassignHoldForm({
  holdId,
  owner,
  itemLabel,
  headingId,
}: {
  holdId: number;
  owner: string;
  itemLabel: string;
  headingId: string;
}) {
  const toast = useToast();
  const [result, setResult] = useState<ActionResult<{ changed: boolean }>>();
  const [pending, startTransition] = useTransition();
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const [focusOpener, setFocusOpener] = useState(false);

  useEffect(() => {
    if (focusOpener && !open) opener.current?.focus();
  }, [focusOpener, open]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const focusAfter = planFocusAfterRow(form.current, headingId);
    startTransition(async () => {
      const answer = await reassignHoldAction(undefined, data);
      startTransition(() => setResult(answer));
      if (!answer.ok) {
        toast.show(`${itemLabel} not reassigned: ${answer.message}`, { tone: 'error' });
        return;
      }
      toast.show(
        answer.data.changed
          ? `${itemLabel} reassigned to ${String(data.get('owner'))}.`
          : `${itemLabel} already had that owner.`,
        { tone: 'success' },
      );
      startTransition(() => {
        setOpen(false);
        setFocusOpener(false);
      });
      focusAfter(() => setFocusOpener(true), 1_000);
    });
  };

  if (!open) {
    return (
      <Button ref={opener} variant="link" onClick={() => setOpen(true)} className="text-[12px]">
        Reassign…
      </Button>
    );
  }
  return (
    <form
      ref={form}
      onSubmit={submit}
      className="mt-1 flex flex-wrap items-center gap-2"
      data-testid="reassign-hold-form"
    >
      <input type="hidden" name="holdId" value={holdId} />
      <Field label="New owner" id={`owner-${holdId}`} hideLabel>
        <Input
          name="owner"
          required
          defaultValue={owner}
          placeholder="team:payments or person:ada@…"
          size="sm"
          className="min-w-0 flex-1"
        />
      </Field>
      <Field label="Reassign note" id={`reassign-note-${holdId}`} hideLabel>
        <Input name="note" required placeholder="Why" size="sm" className="min-w-0 flex-1" />
      </Field>
      <Button type="submit" pending={pending} pendingLabel="Reassigning…">
        Reassign
      </Button>
      <Button variant="link" className="text-[12px]" onClick={() => setOpen(false)}>
        Cancel
      </Button>
      <FormError result={result} className="w-full" />
    </form>
  );
}

/**
 * Clears every hold whose checkbox is ticked (the checkboxes belong to this
 * form through their form attribute), with one note. Discarding asks first.
 * The outcome is announced and focus goes to the list's heading.
 */
export function BulkClearForm({ formId, headingId }: { formId: string; headingId: string }) {
  const toast = useToast();
  const [result, submit, pending] = useActionState(clearHoldsAction, undefined);
  const [resolution, setResolution] = useState<'resume' | 'discard'>('resume');
  const [asking, setAsking] = useState(false);
  const confirmed = useRef(false);
  // The resolution the last answer was sent with (the select may have changed since).
  const sent = useRef<'resume' | 'discard'>('resume');
  const form = useRef<HTMLFormElement>(null);
  const discarding = resolution === 'discard';
  const selected = useTickedCount(formId);

  // Each new answer is announced once.
  useEffect(() => {
    if (!result) return;
    setAsking(false);
    if (result.ok) {
      const { cleared, unchanged } = result.data;
      const done = sent.current === 'discard' ? 'discarded' : 'resumed';
      toast.show(`${cleared} hold(s) ${done}${unchanged ? `, ${unchanged} already cleared` : ''}.`, {
        tone: 'success',
      });
      focusAfterDialogs(() => document.getElementById(headingId));
    } else toast.show(`Nothing cleared: ${result.message}`, { tone: 'error' });
  }, [result, headingId, toast]);

  const guard = (event: FormEvent<HTMLFormElement>) => {
    sent.current = resolution;
    if (!discarding || confirmed.current) {
      confirmed.current = false;
      return;
    }
    event.preventDefault();
    setAsking(true);
  };

  return (
    <form
      ref={form}
      id={formId}
      action={submit}
      onSubmit={guard}
      className="flex flex-wrap items-end gap-2"
      aria-label="Clear the selected holds"
      data-testid="bulk-clear-form"
    >
      <Field label="Selected holds">
        <Select
          name="resolution"
          value={resolution}
          onChange={(event) => setResolution(event.target.value as 'resume' | 'discard')}
          size="sm"
        >
          <option value="resume">Resume</option>
          <option value="discard">Discard</option>
        </Select>
      </Field>
      <Field label="Note for all of them" className="min-w-0 flex-1 sm:flex-none">
        <Input name="note" required placeholder="Why (audited)" size="sm" className="sm:min-w-56" />
      </Field>
      <Button
        type="submit"
        variant={discarding ? 'danger' : 'primary'}
        pending={pending}
        pendingLabel="Clearing…"
        disabled={selected === 0}
        aria-describedby={selected === 0 ? `${formId}-none` : undefined}
      >
        {discarding ? 'Discard selected…' : 'Clear selected'}
        {selected > 0 ? ` (${selected})` : ''}
      </Button>
      {selected === 0 ? (
        <span id={`${formId}-none`} className="text-[12px] text-muted" data-testid="bulk-clear-none">
          Tick the holds to clear together.
        </span>
      ) : null}
      {result?.ok ? (
        <p role="status" className="w-full text-[12px] text-muted" data-testid="bulk-clear-result">
          {`${result.data.cleared} cleared${result.data.unchanged ? `, ${result.data.unchanged} already cleared` : ''}.`}
        </p>
      ) : (
        <FormError result={result} className="w-full" testId="bulk-clear-result" />
      )}
      <ConfirmDialog
        open={asking}
        title="Discard the selected holds?"
        confirmLabel="Discard selected"
        tone="danger"
        pending={pending}
        pendingLabel="Discarding…"
        onConfirm={() => {
          confirmed.current = true;
          form.current?.requestSubmit();
        }}
        onCancel={() => setAsking(false)}
        testId="bulk-discard-confirm"
      >
        Every ticked hold is given up and its work will not run. The one note goes into the audit log for each.
      </ConfirmDialog>
    </form>
  );
}

/** How many checkboxes of the form are ticked (they sit in the rows, tied to it by their form attribute). */
function useTickedCount(formId: string): number {
  const [count, setCount] = useState(0);
  useEffect(() => {
    const recount = () =>
      setCount(document.querySelectorAll(`input[type="checkbox"][form="${CSS.escape(formId)}"]:checked`).length);
    recount();
    document.addEventListener('change', recount);
    // Rows leave the list once cleared (or on the next page): their ticks go with them.
    const rows = new MutationObserver(recount);
    rows.observe(document.body, { childList: true, subtree: true });
    return () => {
      document.removeEventListener('change', recount);
      rows.disconnect();
    };
  }, [formId]);
  return count;
}
