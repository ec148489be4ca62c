'use client';

import { useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { FormError, type FailedAction } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { planFocusAfterRow } from '@/components/console/focus-after-action';
import { discardAction, redriveAction, redriveOverridingBrakesAction } from './actions';

type Act = 'redrive' | 'override' | 'discard';

const actions = { redrive: redriveAction, override: redriveOverridingBrakesAction, discard: discardAction };

function announce(act: Act, deadLetterId: number, changed: boolean): string {
  if (act === 'discard')
    return changed ? `Dead letter ${deadLetterId} discarded.` : `Dead letter ${deadLetterId} was already discarded.`;
  return changed
    ? `Dead letter ${deadLetterId} redriven: it goes back onto its queue.`
    : `Dead letter ${deadLetterId} was already redriven: nothing changed.`;
}

/**
 * Redrive or discard one dead letter, with the reason the audit log keeps.
 * Discarding gives the work up for good, so it asks first. When the redrive
 * brakes refuse (`brakedBy` says why), Redrive is disabled with that reason,
 * and an admin may instead override the brakes, which also asks first. The
 * outcome is announced as a toast. In a list (`headingId` given) the row
 * leaves it, so focus moves to the next row's reason (or the list's heading);
 * `onDone` lets a page do more once an action succeeded.
 */
export function DeadLetterActions({
  deadLetterId,
  refusal,
  brakedBy,
  canOverride,
  headingId,
  onDone,
}: {
  deadLetterId: number;
  refusal?: string;
  brakedBy?: string;
  canOverride: boolean;
  /** The list's heading, where focus goes when no row is left to go on to. */
  headingId?: string;
  onDone?: (deadLetterId: number) => void;
}) {
  const form = useRef<HTMLFormElement>(null);
  const toast = useToast();
  const [running, setRunning] = useState<Act>();
  const [confirming, setConfirming] = useState<'discard' | 'override'>();
  const [failure, setFailure] = useState<FailedAction>();
  if (refusal) return <p className="text-[12px] text-muted">You cannot act on this: {refusal}.</p>;

  const run = async (act: Act) => {
    if (!form.current) return;
    const data = new FormData(form.current);
    const focusAfter = headingId ? planFocusAfterRow(form.current, headingId) : undefined;
    // The dialog closes first: it hands focus back to its opener as it closes, and that must
    // happen before focus moves on, not after.
    setConfirming(undefined);
    setRunning(act);
    const result = await actions[act](undefined, data);
    setRunning(undefined);
    if (!result.ok) {
      setFailure(result);
      toast.show(`Dead letter ${deadLetterId}: ${result.message}`, { tone: 'error' });
      return;
    }
    setFailure(undefined);
    toast.show(announce(act, deadLetterId, result.data.changed), { tone: 'success' });
    focusAfter?.();
    onDone?.(deadLetterId);
  };
  // The reason is required: the browser says so before any dialog asks.
  const ask = (act: 'discard' | 'override') => {
    if (form.current?.reportValidity()) setConfirming(act);
  };

  const reasonId = `reason-${deadLetterId}`;
  const brakesId = `brakes-${deadLetterId}`;
  return (
    <form
      ref={form}
      className="flex flex-wrap items-center gap-2"
      data-testid={`dead-letter-actions-${deadLetterId}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (brakedBy === undefined) void run('redrive');
      }}
    >
      <input type="hidden" name="deadLetterId" value={deadLetterId} />
      <Field label="Reason" id={reasonId} hideLabel>
        <Input
          name="reason"
          required
          placeholder="Why (audited)"
          size="sm"
          className="min-w-40 flex-1"
          data-row-action
        />
      </Field>
      <Button
        type="submit"
        variant="primary"
        disabled={running !== undefined || brakedBy !== undefined}
        pending={running === 'redrive'}
        pendingLabel="Redriving…"
        aria-describedby={brakedBy ? brakesId : undefined}
        title={brakedBy ? `Braked: ${brakedBy}` : undefined}
      >
        Redrive
      </Button>
      {brakedBy && canOverride ? (
        <Button
          onClick={() => ask('override')}
          disabled={running !== undefined}
          pending={running === 'override'}
          pendingLabel="Redriving…"
        >
          Override brakes…
        </Button>
      ) : null}
      <Button
        onClick={() => ask('discard')}
        disabled={running !== undefined}
        pending={running === 'discard'}
        pendingLabel="Discarding…"
      >
        Discard…
      </Button>
      {brakedBy ? (
        <p id={brakesId} className="w-full text-[12px] text-muted" data-testid={`dead-letter-brakes-${deadLetterId}`}>
          Redrive braked: {brakedBy}.{canOverride ? '' : ' An admin may override the brakes.'}
        </p>
      ) : null}
      <FormError result={failure} className="w-full" />
      <ConfirmDialog
        open={confirming === 'discard'}
        title={`Discard dead letter ${deadLetterId}?`}
        confirmLabel="Discard"
        cancelLabel="Keep it"
        tone="danger"
        onConfirm={() => void run('discard')}
        onCancel={() => setConfirming(undefined)}
        testId={`confirm-discard-${deadLetterId}`}
      >
        The work is given up for good and its hold cleared as discarded. Your reason goes in the audit log.
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'override'}
        title={`Redrive dead letter ${deadLetterId} despite the brakes?`}
        confirmLabel="Override and redrive"
        cancelLabel="Keep the brakes"
        onConfirm={() => void run('override')}
        onCancel={() => setConfirming(undefined)}
        testId={`confirm-override-${deadLetterId}`}
      >
        Braked: {brakedBy}. The audit record names the brakes you override, with your reason.
      </ConfirmDialog>
    </form>
  );
}
