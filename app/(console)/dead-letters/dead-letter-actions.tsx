'use client';

import { useActionState, useState } from 'react';
import { discardAction, redriveAction } from './actions';

/**
 * Redrive or discard one dead letter, with the reason the audit log keeps.
 * Discarding gives the work up for good, so it asks once more.
 */
export function DeadLetterActions({ deadLetterId, refusal }: { deadLetterId: number; refusal?: string }) {
  const [redriven, redrive, redriving] = useActionState(redriveAction, undefined);
  const [discarded, discard, discarding] = useActionState(discardAction, undefined);
  const [confirmingDiscard, setConfirmingDiscard] = useState(false);
  if (refusal) return <p className="text-[12px] text-muted">You cannot act on this: {refusal}.</p>;

  const result = redriven ?? discarded;
  const reasonId = `reason-${deadLetterId}`;
  return (
    <form className="flex flex-wrap items-center gap-2" data-testid={`dead-letter-actions-${deadLetterId}`}>
      <input type="hidden" name="deadLetterId" value={deadLetterId} />
      <label className="sr-only" htmlFor={reasonId}>
        Reason
      </label>
      <input id={reasonId} name="reason" required placeholder="Why (kept in the audit log)" className="min-w-40 flex-1 rounded border border-line bg-surface px-2 py-1 text-[12px]" />
      <button type="submit" formAction={redrive} disabled={redriving || discarding} className="rounded bg-accent px-2.5 py-1 text-[12px] font-medium text-on-accent disabled:opacity-60">
        {redriving ? 'Redriving…' : 'Redrive'}
      </button>
      {confirmingDiscard ? (
        <span className="flex items-center gap-1.5" role="group" aria-label="Confirm discard">
          <span className="text-[12px]">Give it up for good?</span>
          <button type="submit" formAction={discard} disabled={discarding} className="rounded bg-danger px-2.5 py-1 text-[12px] font-medium text-on-accent disabled:opacity-60">
            {discarding ? 'Discarding…' : 'Confirm discard'}
          </button>
          <button type="button" onClick={() => setConfirmingDiscard(false)} className="rounded border border-line px-2 py-1 text-[12px]">
            Keep it
          </button>
        </span>
      ) : (
        <button type="button" onClick={() => setConfirmingDiscard(true)} className="rounded border border-line px-2.5 py-1 text-[12px]">
          Discard…
        </button>
      )}
      {result ? (
        <p role={result.ok ? 'status' : 'alert'} className={result.ok ? 'w-full text-[12px] text-muted' : 'w-full text-[12px] text-danger'}>
          {result.ok ? (result.data.changed ? 'Done.' : 'Already done: nothing changed.') : result.message}
        </p>
      ) : null}
    </form>
  );
}
