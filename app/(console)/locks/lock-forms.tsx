'use client';

import { type FormEvent, useId, useRef, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import type { ActionResult } from '@/lib/server/action';
import { focusAfterDialogs, planFocusAfterRow } from '@/components/console/focus-after-action';
import { forceReleaseAction, setKillSwitchAction } from './actions';

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
  const toast = useToast();
  const why = useId();
  const form = useRef<HTMLFormElement>(null);
  const [result, setResult] = useState<ActionResult<{ released: boolean }>>();
  const [pending, startTransition] = useTransition();
  const [asking, setAsking] = useState<FormData>();
  const blocked = blockedBy.length > 0;

  const release = (data: FormData) => {
    const focusAfter = planFocusAfterRow(form.current, headingId);
    startTransition(async () => {
      const answer = await forceReleaseAction(undefined, data);
      startTransition(() => {
        setResult(answer);
        setAsking(undefined);
      });
      if (!answer.ok) {
        toast.show(`${slot} not released: ${answer.message}`, { tone: 'error' });
        return;
      }
      toast.show(answer.data.released ? `${slot} released.` : `${slot} was already released: nothing changed.`, {
        tone: 'success',
      });
      focusAfter();
    });
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAsking(new FormData(event.currentTarget));
  };

  return (
    <form ref={form} onSubmit={submit} className="flex flex-wrap items-center gap-2" data-testid="force-release-form">
      <input type="hidden" name="slot" value={slot} />
      <input type="hidden" name="fencingToken" value={fencingToken} />
      {blocked ? null : (
        <Field label="Reason for the release" id={`${why}-reason`} hideLabel>
          <Input
            name="reason"
            required
            placeholder="Why (kept in the audit log)"
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
      <ConfirmDialog
        open={asking !== undefined}
        title={`Force release ${slot}?`}
        confirmLabel="Confirm release"
        tone="danger"
        pending={pending}
        pendingLabel="Releasing…"
        onConfirm={() => asking && release(asking)}
        onCancel={() => setAsking(undefined)}
        testId="force-release-confirm"
      >
        <p>
          Token {fencingToken} is taken from its run; the next run may acquire the slot. If the lock was acquired again
          since this page showed it, the release is refused.
        </p>
        <p className="mt-1 [overflow-wrap:anywhere]">Reason: {String(asking?.get('reason') ?? '')}</p>
      </ConfirmDialog>
    </form>
  );
}

/**
 * Admins stop (or restart) the sweeper's automatic release of stale locks,
 * with a reason; either direction asks first and is announced.
 */
export function KillSwitchForm({ engaged, headingId }: { engaged: boolean; headingId: string }) {
  const toast = useToast();
  const form = useRef<HTMLFormElement>(null);
  const [result, setResult] = useState<ActionResult<null>>();
  const [pending, startTransition] = useTransition();
  const [asking, setAsking] = useState<FormData>();

  const change = (data: FormData) =>
    startTransition(async () => {
      const answer = await setKillSwitchAction(undefined, data);
      startTransition(() => {
        setResult(answer);
        setAsking(undefined);
      });
      if (!answer.ok) {
        toast.show(`Not switched: ${answer.message}`, { tone: 'error' });
        return;
      }
      form.current?.reset();
      toast.show(engaged ? 'Automatic release is on again.' : 'Automatic release stopped.', { tone: 'success' });
      focusAfterDialogs(() => document.getElementById(headingId));
    });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAsking(new FormData(event.currentTarget));
  };

  return (
    <form ref={form} onSubmit={submit} className="flex flex-wrap items-center gap-2" data-testid="kill-switch-form">
      <input type="hidden" name="engaged" value={engaged ? 'false' : 'true'} />
      <Field label="Reason for switching" id="kill-switch-reason" hideLabel>
        <Input
          name="reason"
          required
          placeholder="Why (kept in the audit log)"
          size="sm"
          className="min-w-0 flex-1 sm:max-w-md"
        />
      </Field>
      <Button type="submit" pending={pending}>
        {engaged ? 'Allow automatic release again…' : 'Stop automatic release…'}
      </Button>
      <FormError result={result} className="w-full" />
      <ConfirmDialog
        open={asking !== undefined}
        title={engaged ? 'Allow automatic release again?' : 'Stop automatic release?'}
        confirmLabel={engaged ? 'Allow again' : 'Stop it'}
        tone={engaged ? 'primary' : 'danger'}
        pending={pending}
        onConfirm={() => asking && change(asking)}
        onCancel={() => setAsking(undefined)}
        testId="kill-switch-confirm"
      >
        {engaged
          ? 'The sweeper will release stale locks again when every guard passes.'
          : 'The sweeper stops releasing stale locks, and force release is refused, until someone allows it again.'}
      </ConfirmDialog>
    </form>
  );
}
