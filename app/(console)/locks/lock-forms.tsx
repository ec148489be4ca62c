'use client';

import { useActionState, useId, useState } from 'react';
import { forceReleaseAction, setKillSwitchAction } from './actions';

/**
 * Force-release one stale lock. Enabled only when every guard passes on the
 * page; the server checks them all again inside the release's transaction.
 */
export function ForceReleaseForm({
  slot,
  fencingToken,
  blockedBy,
}: {
  slot: string;
  fencingToken: number;
  blockedBy: string[];
}) {
  const [result, submit, pending] = useActionState(forceReleaseAction, undefined);
  const [confirming, setConfirming] = useState(false);
  const why = useId();
  const blocked = blockedBy.length > 0;
  if (result?.ok)
    return (
      <p role="status" className="text-[12px]">
        {result.data.released ? 'Released.' : 'Already released: nothing changed.'}
      </p>
    );
  return (
    <form action={submit} className="flex flex-wrap items-center gap-2" data-testid="force-release-form">
      <input type="hidden" name="slot" value={slot} />
      <input type="hidden" name="fencingToken" value={fencingToken} />
      {confirming ? (
        <>
          <label className="sr-only" htmlFor={`${why}-reason`}>
            Reason for the release
          </label>
          <input
            id={`${why}-reason`}
            name="reason"
            required
            placeholder="Why (kept in the audit log)"
            className="min-w-48 flex-1 rounded border border-line bg-surface px-2 py-1 text-[12px]"
          />
          <button
            type="submit"
            disabled={pending}
            className="rounded bg-danger px-2.5 py-1 text-[12px] font-medium text-on-accent disabled:opacity-60"
          >
            {pending ? 'Releasing…' : 'Confirm release'}
          </button>
          <button
            type="button"
            onClick={() => setConfirming(false)}
            className="rounded border border-line px-2 py-1 text-[12px]"
          >
            Keep the lock
          </button>
        </>
      ) : (
        <button
          type="button"
          disabled={blocked}
          aria-describedby={blocked ? `${why}-blocked` : undefined}
          onClick={() => setConfirming(true)}
          className="rounded border border-line px-2.5 py-1 text-[12px] disabled:cursor-not-allowed disabled:opacity-50"
        >
          Force release…
        </button>
      )}
      {blocked ? (
        <p id={`${why}-blocked`} className="w-full text-[12px] text-muted" data-testid="force-release-blocked">
          Not releasable: {blockedBy.join('; ')}.
        </p>
      ) : null}
      {result && !result.ok ? (
        <p role="alert" className="w-full text-[12px] text-danger">
          {result.message}
        </p>
      ) : null}
    </form>
  );
}

/** Admins stop (or restart) the sweeper's automatic release of stale locks, with a reason. */
export function KillSwitchForm({ engaged }: { engaged: boolean }) {
  const [result, submit, pending] = useActionState(setKillSwitchAction, undefined);
  return (
    <form action={submit} className="flex flex-wrap items-center gap-2" data-testid="kill-switch-form">
      <input type="hidden" name="engaged" value={engaged ? 'false' : 'true'} />
      <label className="sr-only" htmlFor="kill-switch-reason">
        Reason for switching
      </label>
      <input
        id="kill-switch-reason"
        name="reason"
        required
        placeholder="Why (kept in the audit log)"
        className="min-w-56 rounded border border-line bg-surface px-2 py-1 text-[12px]"
      />
      <button
        type="submit"
        disabled={pending}
        className="rounded border border-line px-2.5 py-1 text-[12px] disabled:opacity-60"
      >
        {engaged ? 'Allow automatic release again' : 'Stop automatic release'}
      </button>
      {result && !result.ok ? (
        <p role="alert" className="w-full text-[12px] text-danger">
          {result.message}
        </p>
      ) : null}
    </form>
  );
}
