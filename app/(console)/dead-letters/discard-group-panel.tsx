'use client';

import { useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { FormError, type FailedAction } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { formatCount } from '@/lib/console/format';
import { discardErrorGroupAction } from './actions';

/**
 * Gives up a whole error group at once (a cause that will never succeed, like an address that does not exist):
 * a reason, a confirmation naming the count, then all of the group's pending dead letters or none. The count sent
 * is the one on screen, so letters that arrived since are not discarded unseen: the action refuses and the page
 * shows the new count.
 */
export function DiscardGroupPanel({ group, pending }: { group: string; pending: number }) {
  const form = useRef<HTMLFormElement>(null);
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const [running, setRunning] = useState(false);
  const [failure, setFailure] = useState<FailedAction>();
  const plural = pending === 1 ? '' : 's';

  const discard = async () => {
    const reason = form.current ? String(new FormData(form.current).get('reason') ?? '') : '';
    setConfirming(false);
    setRunning(true);
    const result = await discardErrorGroupAction({ group, reason, expectedCount: pending });
    setRunning(false);
    if (!result.ok) {
      setFailure(result);
      toast.show(result.message, { tone: 'error' });
      return;
    }
    setFailure(undefined);
    form.current?.reset();
    toast.show(`Discarded the group's ${formatCount(result.data.discarded)} dead letter${plural}.`, {
      tone: 'success',
    });
  };

  return (
    <form
      ref={form}
      aria-label="Discard the whole error group"
      className="flex flex-wrap items-center gap-2"
      data-testid="discard-group"
      onSubmit={(event) => {
        event.preventDefault();
        if (form.current?.reportValidity()) setConfirming(true);
      }}
    >
      <Field label="Reason for discarding the group" hideLabel>
        <Input name="reason" required maxLength={2_000} placeholder="Why give the group up" size="sm" />
      </Field>
      <Button type="submit" disabled={running} pending={running} pendingLabel="Discarding…">
        Discard all {formatCount(pending)} of this group…
      </Button>
      <FormError result={failure} className="w-full" />
      <ConfirmDialog
        open={confirming}
        title={`Discard all ${formatCount(pending)} dead letter${plural} of this group?`}
        confirmLabel={`Discard ${formatCount(pending)}`}
        cancelLabel="Keep them"
        tone="danger"
        onConfirm={() => void discard()}
        onCancel={() => setConfirming(false)}
        testId="confirm-discard-group"
      >
        All of them or none, each recorded in the audit log with your reason, and their holds cleared. A discarded dead
        letter cannot be redriven. If the group has changed since this page was read, nothing is discarded.
      </ConfirmDialog>
    </form>
  );
}
