'use client';

import { useActionState, useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
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
          <Field label="Reason for the release" id={`${why}-reason`} hideLabel>
            <Input
              name="reason"
              required
              placeholder="Why (kept in the audit log)"
              size="sm"
              className="min-w-48 flex-1"
            />
          </Field>
          <Button type="submit" variant="danger" pending={pending} pendingLabel="Releasing…">
            Confirm release
          </Button>
          <Button onClick={() => setConfirming(false)}>Keep the lock</Button>
        </>
      ) : (
        <Button
          disabled={blocked}
          aria-describedby={blocked ? `${why}-blocked` : undefined}
          onClick={() => setConfirming(true)}
        >
          Force release…
        </Button>
      )}
      {blocked ? (
        <p id={`${why}-blocked`} className="w-full text-[12px] text-muted" data-testid="force-release-blocked">
          Not releasable: {blockedBy.join('; ')}.
        </p>
      ) : null}
      <FormError result={result} className="w-full" />
    </form>
  );
}

/** Admins stop (or restart) the sweeper's automatic release of stale locks, with a reason. */
export function KillSwitchForm({ engaged }: { engaged: boolean }) {
  const [result, submit, pending] = useActionState(setKillSwitchAction, undefined);
  return (
    <form action={submit} className="flex flex-wrap items-center gap-2" data-testid="kill-switch-form">
      <input type="hidden" name="engaged" value={engaged ? 'false' : 'true'} />
      <Field label="Reason for switching" id="kill-switch-reason" hideLabel>
        <Input name="reason" required placeholder="Why (kept in the audit log)" size="sm" className="min-w-56" />
      </Field>
      <Button type="submit" pending={pending}>
        {engaged ? 'Allow automatic release again' : 'Stop automatic release'}
      </Button>
      <FormError result={result} className="w-full" />
    </form>
  );
}
