'use client';

import { useActionState, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { clearHoldsAction, reassignHoldAction } from './actions';

/** Give a hold to another person or team, with a note. */
export function ReassignHoldForm({ holdId, owner }: { holdId: number; owner: string }) {
  const [result, submit, pending] = useActionState(reassignHoldAction, undefined);
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <Button variant="link" onClick={() => setOpen(true)} className="text-[12px]">
        Reassign…
      </Button>
    );
  }
  return (
    <form action={submit} className="mt-1 flex flex-wrap items-center gap-2" data-testid="reassign-hold-form">
      <input type="hidden" name="holdId" value={holdId} />
      <Field label="New owner" id={`owner-${holdId}`} hideLabel>
        <Input
          name="owner"
          required
          defaultValue={owner}
          placeholder="team:payments or person:ada@…"
          size="sm"
          className="min-w-44"
        />
      </Field>
      <Field label="Reassign note" id={`reassign-note-${holdId}`} hideLabel>
        <Input name="note" required placeholder="Why" size="sm" className="min-w-32 flex-1" />
      </Field>
      <Button type="submit" pending={pending} pendingLabel="Reassigning…">
        Reassign
      </Button>
      {result?.ok ? (
        <p role="status" className="w-full text-[12px] text-muted">
          {result.data.changed ? 'Reassigned.' : 'It already had that owner.'}
        </p>
      ) : (
        <FormError result={result} className="w-full" />
      )}
    </form>
  );
}

/**
 * Clears every hold whose checkbox is ticked (the checkboxes belong to this
 * form through their form attribute), with one note. Discarding asks once more.
 */
export function BulkClearForm({ formId }: { formId: string }) {
  const [result, submit, pending] = useActionState(clearHoldsAction, undefined);
  const [resolution, setResolution] = useState<'resume' | 'discard'>('resume');
  const [confirming, setConfirming] = useState(false);
  const discarding = resolution === 'discard';
  return (
    <form
      id={formId}
      action={submit}
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
      <Field label="Note for all of them">
        <Input name="note" required placeholder="Why (kept in the audit log)" size="sm" className="min-w-56" />
      </Field>
      {discarding && !confirming ? (
        <Button onClick={() => setConfirming(true)}>Clear selected…</Button>
      ) : (
        <Button type="submit" variant={discarding ? 'danger' : 'primary'} pending={pending} pendingLabel="Clearing…">
          {discarding ? 'Confirm: discard selected' : 'Clear selected'}
        </Button>
      )}
      {result?.ok ? (
        <p role="status" className="w-full text-[12px] text-muted" data-testid="bulk-clear-result">
          {`${result.data.cleared} cleared${result.data.unchanged ? `, ${result.data.unchanged} already cleared` : ''}.`}
        </p>
      ) : (
        <FormError result={result} className="w-full" testId="bulk-clear-result" />
      )}
    </form>
  );
}
