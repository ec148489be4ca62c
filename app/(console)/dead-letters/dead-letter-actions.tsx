'use client';

import { useActionState, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { discardAction, redriveAction, redriveOverridingBrakesAction } from './actions';
import { ConfirmChoice } from './confirm-choice';

/**
 * Redrive or discard one dead letter, with the reason the audit log keeps.
 * Discarding gives the work up for good, so it asks once more. When the
 * redrive brakes refuse (`brakedBy` says why), Redrive is disabled with that
 * reason, and an admin may instead override the brakes, which also asks once more.
 */
export function DeadLetterActions({
  deadLetterId,
  refusal,
  brakedBy,
  canOverride,
}: {
  deadLetterId: number;
  refusal?: string;
  brakedBy?: string;
  canOverride: boolean;
}) {
  const [redriven, redrive, redriving] = useActionState(redriveAction, undefined);
  const [overridden, override, overriding] = useActionState(redriveOverridingBrakesAction, undefined);
  const [discarded, discard, discarding] = useActionState(discardAction, undefined);
  const [confirming, setConfirming] = useState<'discard' | 'override'>();
  if (refusal) return <p className="text-[12px] text-muted">You cannot act on this: {refusal}.</p>;

  const result = redriven ?? overridden ?? discarded;
  const busy = redriving || overriding || discarding;
  const reasonId = `reason-${deadLetterId}`;
  const brakesId = `brakes-${deadLetterId}`;
  return (
    <form className="flex flex-wrap items-center gap-2" data-testid={`dead-letter-actions-${deadLetterId}`}>
      <input type="hidden" name="deadLetterId" value={deadLetterId} />
      <Field label="Reason" id={reasonId} hideLabel>
        <Input name="reason" required placeholder="Why (kept in the audit log)" size="sm" className="min-w-40 flex-1" />
      </Field>
      <Button
        type="submit"
        variant="primary"
        formAction={redrive}
        disabled={busy || brakedBy !== undefined}
        pending={redriving}
        pendingLabel="Redriving…"
        aria-describedby={brakedBy ? brakesId : undefined}
        title={brakedBy ? `Braked: ${brakedBy}` : undefined}
      >
        Redrive
      </Button>
      {brakedBy && canOverride ? (
        confirming === 'override' ? (
          <ConfirmChoice
            label="Confirm override"
            question="Redrive despite the brakes? Your reason goes in the audit log."
            confirmText="Confirm override"
            busyText="Redriving…"
            busy={overriding}
            tone="accent"
            action={override}
            onCancel={() => setConfirming(undefined)}
            cancelText="Keep the brakes"
          />
        ) : (
          <Button onClick={() => setConfirming('override')}>Override brakes…</Button>
        )
      ) : null}
      {confirming === 'discard' ? (
        <ConfirmChoice
          label="Confirm discard"
          question="Give it up for good?"
          confirmText="Confirm discard"
          busyText="Discarding…"
          busy={discarding}
          tone="danger"
          action={discard}
          onCancel={() => setConfirming(undefined)}
          cancelText="Keep it"
        />
      ) : (
        <Button onClick={() => setConfirming('discard')}>Discard…</Button>
      )}
      {brakedBy ? (
        <p id={brakesId} className="w-full text-[12px] text-muted" data-testid={`dead-letter-brakes-${deadLetterId}`}>
          Redrive braked: {brakedBy}.{canOverride ? '' : ' An admin may override the brakes.'}
        </p>
      ) : null}
      {result?.ok ? (
        <p role="status" className="w-full text-[12px] text-muted">
          {result.data.changed ? 'Done.' : 'Already done: nothing changed.'}
        </p>
      ) : (
        <FormError result={result} className="w-full" />
      )}
    </form>
  );
}
