'use client';

import { useActionState, useState } from 'react';
import { clearHoldsAction, reassignHoldAction } from './actions';

const inputClass = 'rounded border border-line bg-surface px-2 py-1 text-[12px]';

/** Give a hold to another person or team, with a note. */
export function ReassignHoldForm({ holdId, owner }: { holdId: number; owner: string }) {
  const [result, submit, pending] = useActionState(reassignHoldAction, undefined);
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)} className="text-[12px] text-accent hover:underline">
        Reassign…
      </button>
    );
  }
  return (
    <form action={submit} className="mt-1 flex flex-wrap items-center gap-2" data-testid="reassign-hold-form">
      <input type="hidden" name="holdId" value={holdId} />
      <label className="sr-only" htmlFor={`owner-${holdId}`}>
        New owner
      </label>
      <input
        id={`owner-${holdId}`}
        name="owner"
        required
        defaultValue={owner}
        placeholder="team:payments or person:ada@…"
        className={`${inputClass} min-w-44`}
      />
      <label className="sr-only" htmlFor={`reassign-note-${holdId}`}>
        Reassign note
      </label>
      <input
        id={`reassign-note-${holdId}`}
        name="note"
        required
        placeholder="Why"
        className={`${inputClass} min-w-32 flex-1`}
      />
      <button
        type="submit"
        disabled={pending}
        className="rounded border border-line px-2 py-1 text-[12px] disabled:opacity-60"
      >
        {pending ? 'Reassigning…' : 'Reassign'}
      </button>
      {result ? (
        <p
          role={result.ok ? 'status' : 'alert'}
          className={`w-full text-[12px] ${result.ok ? 'text-muted' : 'text-danger'}`}
        >
          {result.ok ? (result.data.changed ? 'Reassigned.' : 'It already had that owner.') : result.message}
        </p>
      ) : null}
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
  return (
    <form
      id={formId}
      action={submit}
      className="flex flex-wrap items-end gap-2"
      aria-label="Clear the selected holds"
      data-testid="bulk-clear-form"
    >
      <label className="flex flex-col gap-1 text-[12px] text-muted">
        Selected holds
        <select
          name="resolution"
          value={resolution}
          onChange={(event) => setResolution(event.target.value as 'resume' | 'discard')}
          className={inputClass}
        >
          <option value="resume">Resume</option>
          <option value="discard">Discard</option>
        </select>
      </label>
      <label className="flex flex-col gap-1 text-[12px] text-muted">
        Note for all of them
        <input name="note" required placeholder="Why (kept in the audit log)" className={`${inputClass} min-w-56`} />
      </label>
      {resolution === 'discard' && !confirming ? (
        <button
          type="button"
          onClick={() => setConfirming(true)}
          className="rounded border border-line px-2.5 py-1 text-[12px]"
        >
          Clear selected…
        </button>
      ) : (
        <button
          type="submit"
          disabled={pending}
          className={`rounded px-2.5 py-1 text-[12px] font-medium text-on-accent disabled:opacity-60 ${resolution === 'discard' ? 'bg-danger' : 'bg-accent'}`}
        >
          {pending ? 'Clearing…' : resolution === 'discard' ? 'Confirm: discard selected' : 'Clear selected'}
        </button>
      )}
      {result ? (
        <p
          role={result.ok ? 'status' : 'alert'}
          className={`w-full text-[12px] ${result.ok ? 'text-muted' : 'text-danger'}`}
          data-testid="bulk-clear-result"
        >
          {result.ok
            ? `${result.data.cleared} cleared${result.data.unchanged ? `, ${result.data.unchanged} already cleared` : ''}.`
            : result.message}
        </p>
      ) : null}
    </form>
  );
}
