'use client';

import { useActionState, useId, useState } from 'react';
import { deletePoolAction } from './actions';

/** Deletes one pool after a confirmation with a reason; the server checks the role again. */
export function DeletePool({ poolId, scope }: { poolId: number; scope: string }) {
  const [result, submit, pending] = useActionState(deletePoolAction, undefined);
  const [confirming, setConfirming] = useState(false);
  const id = useId();
  if (result?.ok)
    return (
      <p role="status" className="text-[12px]">
        {result.data.changed ? 'Deleted.' : 'Already deleted: nothing changed.'}
      </p>
    );
  if (!confirming) {
    return (
      <button
        type="button"
        onClick={() => setConfirming(true)}
        className="text-[12px] text-danger hover:underline"
        aria-label={`Delete the pool of ${scope}`}
      >
        Delete…
      </button>
    );
  }
  return (
    <form action={submit} className="relative flex min-w-64 flex-col gap-1.5" data-testid="delete-pool-form">
      <input type="hidden" name="poolId" value={poolId} />
      <p className="text-[12px]">
        Delete the pool of {scope}? Its steps&apos; retries are then limited only by each task&apos;s allowance.
      </p>
      <label className="sr-only" htmlFor={`${id}-reason`}>
        Reason for deleting
      </label>
      <input
        id={`${id}-reason`}
        name="reason"
        required
        placeholder="Why (kept in the audit log)"
        className="rounded border border-line bg-surface px-2 py-1 text-[12px]"
      />
      <span className="flex gap-1.5">
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-danger px-2.5 py-1 text-[12px] font-medium text-on-accent disabled:opacity-60"
        >
          {pending ? 'Deleting…' : 'Delete pool'}
        </button>
        <button
          type="button"
          onClick={() => setConfirming(false)}
          className="rounded border border-line px-2 py-1 text-[12px]"
        >
          Keep it
        </button>
      </span>
      {result && !result.ok ? (
        <p role="alert" className="text-[12px] text-danger">
          {result.message}
        </p>
      ) : null}
    </form>
  );
}
