'use client';

import { useActionState } from 'react';
import { clearHoldAction } from './actions';

/** Clear one hold: resume or discard, with the note the audit log keeps. */
export function ClearHoldForm({ holdId, refusal }: { holdId: number; refusal?: string }) {
  const [result, submit, pending] = useActionState(clearHoldAction, undefined);
  if (refusal) {
    return (
      <p className="text-[12px] text-muted" data-testid="clear-refused">
        You cannot clear this: {refusal}.
      </p>
    );
  }
  return (
    <form action={submit} className="flex flex-wrap items-center gap-2" data-testid="clear-hold-form">
      <input type="hidden" name="holdId" value={holdId} />
      <label className="sr-only" htmlFor={`resolution-${holdId}`}>
        Resolution
      </label>
      <select
        id={`resolution-${holdId}`}
        name="resolution"
        className="rounded border border-line bg-surface px-1.5 py-1 text-[12px]"
      >
        <option value="resume">Resume</option>
        <option value="discard">Discard</option>
      </select>
      <label className="sr-only" htmlFor={`note-${holdId}`}>
        Note
      </label>
      <input
        id={`note-${holdId}`}
        name="note"
        required
        placeholder="Why (kept in the audit log)"
        className="min-w-40 flex-1 rounded border border-line bg-surface px-2 py-1 text-[12px]"
      />
      <button
        type="submit"
        disabled={pending}
        className="rounded bg-accent px-2.5 py-1 text-[12px] font-medium text-on-accent disabled:opacity-60"
      >
        {pending ? 'Clearing…' : 'Clear'}
      </button>
      {result && !result.ok ? (
        <p role="alert" className="w-full text-[12px] text-danger">
          {result.message}
        </p>
      ) : null}
    </form>
  );
}
