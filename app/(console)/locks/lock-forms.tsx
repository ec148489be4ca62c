'use client';

import { useId, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useConfirmedAction } from '@/components/console/use-confirmed-action';
import { forceReleaseAction, setKillSwitchAction } from './actions';
import { ConfirmAsked } from '@/components/console/confirm-asked';

/**
 * Force-release one stale lock. Enabled only when every guard passes on the
 * page; asks for a reason and a confirmation; the server checks every guard
 * again inside the release's transaction. The outcome is announced and focus
 * moves to the next lock's action (or the list's heading).
 */
export function ForceReleaseForm({
  slot,
  fencingToken,
  blockedBy,
  headingId,
}: {
  slot: string;
  fencingToken: number;
  blockedBy: string[];
  headingId: string;
}) {
  const why = useId();
  const form = useRef<HTMLFormElement>(null);
  const blocked = blockedBy.length > 0;
  const confirmed = useConfirmedAction({
    action: (data) => forceReleaseAction(undefined, data),
    form,
    headingId,
    after: 'row',
    succeeded: ({ released }) => (released ? `${slot} released.` : `${slot} was already released: nothing changed.`),
    refused: `${slot} not released`,
  });
  const { submit, pending, result } = confirmed;

  return (
    <form ref={form} onSubmit={submit} className="flex flex-wrap items-center gap-2" data-testid="force-release-form">
      <input type="hidden" name="slot" value={slot} />
      <input type="hidden" name="fencingToken" value={fencingToken} />
      {blocked ? null : (
        <Field label="Reason for the release" id={`${why}-reason`} hideLabel>
          <Input
            name="reason"
            required
            placeholder="Why (audited)"
            size="sm"
            className="min-w-0 flex-1"
            data-row-action
          />
        </Field>
      )}
      <Button
        type="submit"
        variant={blocked ? 'secondary' : 'danger'}
        disabled={blocked}
        pending={pending}
        pendingLabel="Releasing…"
        aria-describedby={blocked ? `${why}-blocked` : undefined}
      >
        Force release…
      </Button>
      {blocked ? (
        <p id={`${why}-blocked`} className="w-full text-[12px] text-muted" data-testid="force-release-blocked">
          Not releasable: {blockedBy.join('; ')}.
        </p>
      ) : null}
      <FormError result={result} className="w-full" />
      <ConfirmAsked
        action={confirmed}
        title={`Force release ${slot}?`}
        confirmLabel="Confirm release"
        tone="danger"
        pendingLabel="Releasing…"
        testId="force-release-confirm"
      >
        <p>
          Token {fencingToken} is taken from its run; the next run may acquire the slot. If the lock was acquired again
          since this page showed it, the release is refused.
        </p>
      </ConfirmAsked>
    </form>
  );
}

/**
 * Admins stop (or restart) the sweeper's automatic release of stale locks,
 * with a reason; either direction asks first and is announced.
 */
export function KillSwitchForm({ engaged, headingId }: { engaged: boolean; headingId: string }) {
  const form = useRef<HTMLFormElement>(null);
  const confirmed = useConfirmedAction({
    action: (data) => setKillSwitchAction(undefined, data),
    form,
    headingId,
    after: 'heading',
    succeeded: () => (engaged ? 'Automatic release is on again.' : 'Automatic release stopped.'),
    refused: 'Not switched',
    afterSuccess: () => form.current?.reset(),
  });
  const { submit, pending, result } = confirmed;

  return (
    <form ref={form} onSubmit={submit} className="flex flex-wrap items-center gap-2" data-testid="kill-switch-form">
      <input type="hidden" name="engaged" value={engaged ? 'false' : 'true'} />
      <Field label="Reason for switching" id="kill-switch-reason" hideLabel>
        <Input name="reason" required placeholder="Why (audited)" size="sm" className="min-w-0 flex-1 sm:max-w-md" />
      </Field>
      <Button type="submit" pending={pending}>
        {engaged ? 'Allow automatic release again…' : 'Stop automatic release…'}
      </Button>
      <FormError result={result} className="w-full" />
      <ConfirmAsked
        action={confirmed}
        title={engaged ? 'Allow automatic release again?' : 'Stop automatic release?'}
        confirmLabel={engaged ? 'Allow again' : 'Stop it'}
        tone={engaged ? 'primary' : 'danger'}
        testId="kill-switch-confirm"
      >
        {engaged
          ? 'The sweeper will release stale locks again when every guard passes.'
          : 'The sweeper stops releasing stale locks, and force release is refused, until someone allows it again.'}
      </ConfirmAsked>
    </form>
  );
}
