'use client';

import { useId, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useConfirmedAction } from '@/components/console/use-confirmed-action';
import { overrideReleaseAction } from './actions';
import { ConfirmAsked } from '@/components/console/confirm-asked';

/**
 * For admins, on a stale lock its guards refuse: release it anyway, with a reason. The confirmation repeats what
 * is overridden (the failing guards, the evidence seen), since another run may then do the slot's work again.
 */
export function OverrideReleaseForm({
  slot,
  fencingToken,
  overridden,
  latestEvidence,
  headingId,
}: {
  slot: string;
  fencingToken: number;
  overridden: string[];
  latestEvidence: string | null;
  headingId: string;
}) {
  const why = useId();
  const form = useRef<HTMLFormElement>(null);
  const confirmed = useConfirmedAction({
    action: (data) => overrideReleaseAction(undefined, data),
    form,
    headingId,
    after: 'row',
    succeeded: ({ released }) =>
      released ? `${slot} released over its guards.` : `${slot} was already released: nothing changed.`,
    refused: `${slot} not released`,
  });
  const { submit, pending, result } = confirmed;

  return (
    <form
      ref={form}
      onSubmit={submit}
      className="mt-2 flex flex-wrap items-center gap-2 border-t border-line pt-2"
      data-testid="override-release-form"
    >
      <input type="hidden" name="slot" value={slot} />
      <input type="hidden" name="fencingToken" value={fencingToken} />
      <Field label="Reason for releasing over the guards" id={`${why}-reason`} hideLabel>
        <Input name="reason" required placeholder="Why the holder is gone" size="sm" className="min-w-0 flex-1" />
      </Field>
      <Button type="submit" variant="danger" pending={pending} pendingLabel="Releasing…">
        Release anyway…
      </Button>
      <FormError result={result} className="w-full" />
      <ConfirmAsked
        action={confirmed}
        title={`Release ${slot} over its guards?`}
        confirmLabel="Release anyway"
        tone="danger"
        pendingLabel="Releasing…"
        testId="override-release-confirm"
      >
        <p>The guards refuse this release: {overridden.join('; ')}.</p>
        {latestEvidence ? (
          <p className="mt-1 [overflow-wrap:anywhere]">
            Evidence says the side effect happened ({latestEvidence}): the next run may do it again.
          </p>
        ) : null}
        <p className="mt-1">
          Token {fencingToken} is taken from its run; a run still working will be refused at its next fenced write.
        </p>
      </ConfirmAsked>
    </form>
  );
}
