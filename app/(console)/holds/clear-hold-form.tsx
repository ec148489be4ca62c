'use client';

import Link from 'next/link';
import { type FormEvent, useRef, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { useToast } from '@/components/ui/toast';
import type { HoldItemType } from '@holdfast/protocol/enums';
import type { ActionResult } from '@/lib/server/action';
import { redriveOutcomeLabels } from '@/lib/console/labels/redrive-outcomes';
import type { RedrivePreview } from '@holdfast/engine/core';
import { clearHoldAction, previewHoldRedriveAction } from './actions';
import { planFocusAfterRow } from '@/components/console/focus-after-action';

type Resolution = 'resume' | 'discard';

/**
 * What a confirmation says: resuming lets parked work go on, discarding gives it up, settling a key decides whether
 * a side effect runs again. Every way of clearing asks first.
 */
function confirmation(
  itemType: HoldItemType,
  resolution: Resolution,
): { title: string; body: string; confirm: string } {
  if (itemType === 'key')
    return resolution === 'resume'
      ? {
          title: 'Run the step again?',
          body: 'The key is released: the next delivery runs the side effect again. Do this only if you checked that it did not happen.',
          confirm: 'Run again',
        }
      : {
          title: 'Leave it as done?',
          body: 'The key is settled as done: the side effect will not run again. Do this only if you checked that it happened.',
          confirm: 'Leave as done',
        };
  if (itemType === 'dead_letter' && resolution === 'resume')
    return {
      title: 'Redrive this dead letter?',
      body: 'Resuming redrives the dead letter: its task goes back onto its queue with a fresh allowance.',
      confirm: 'Redrive',
    };
  if (resolution === 'discard')
    return {
      title: 'Discard this hold?',
      body: 'The parked work is given up and will not run. The note goes into the audit log.',
      confirm: 'Discard',
    };
  // Resuming lets parked work go on (a charge, a send): a choice as deliberate as giving it up.
  return {
    title: 'Resume this hold?',
    body: 'The parked work goes on: its next step may run. The note goes into the audit log.',
    confirm: 'Resume',
  };
}

/** What the toast says was done: an uncertain key is run again or left as done, other work resumed or discarded. */
function outcomeWord(itemType: HoldItemType, resolution: Resolution): string {
  if (itemType === 'key') return resolution === 'resume' ? 'released to run again' : 'left as done';
  if (itemType === 'dead_letter' && resolution === 'resume') return 'redriven';
  return resolution === 'resume' ? 'resumed' : 'discarded';
}

/**
 * Clear one hold: resume or discard, with the note the audit log keeps.
 * Discarding, and either way of settling an uncertain key, asks first. The
 * outcome is announced, and focus moves to the next row's action (the row
 * leaves the list) or the list's heading.
 */
export function ClearHoldForm({
  holdId,
  itemType,
  itemId,
  itemLabel,
  headingId,
  refusal,
  mayReassign = false,
}: {
  holdId: number;
  itemType: HoldItemType;
  /** The held item's id: a dead letter's is previewed before its hold is resumed. */
  itemId: string;
  itemLabel: string;
  headingId: string;
  refusal?: string;
  /** Whether the person may reassign it: then a refusal says they may hand it to someone who can clear it. */
  mayReassign?: boolean;
}) {
  const toast = useToast();
  const form = useRef<HTMLFormElement>(null);
  const [result, setResult] = useState<ActionResult<{ changed: boolean }>>();
  const [pending, startTransition] = useTransition();
  const [asking, setAsking] = useState<{ data: FormData; resolution: Resolution; preview?: RedrivePreview }>();
  // Resuming a dead letter's hold redrives it: when the brakes refuse, say so here instead of asking.
  const [braked, setBraked] = useState<string>();

  if (refusal) {
    return (
      <p className="text-[12px] text-muted" data-testid="clear-refused">
        You cannot clear this: {refusal}.{' '}
        {mayReassign
          ? 'You may reassign it to a person or team who can (Reassign…).'
          : 'Ask its owner or the on-call responder to clear it.'}
      </p>
    );
  }

  const run = (data: FormData, resolution: Resolution) => {
    const focusAfter = planFocusAfterRow(form.current, headingId);
    startTransition(async () => {
      const answer = await clearHoldAction(undefined, data);
      startTransition(() => {
        setResult(answer);
        setAsking(undefined);
      });
      if (!answer.ok) {
        toast.show(`${itemLabel} not cleared: ${answer.message}`, { tone: 'error' });
        return;
      }
      toast.show(
        answer.data.changed
          ? `${itemLabel} ${outcomeWord(itemType, resolution)}.`
          : `${itemLabel} was already cleared: nothing changed.`,
        { tone: 'success' },
      );
      focusAfter();
    });
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const resolution = data.get('resolution') === 'discard' ? 'discard' : 'resume';
    setBraked(undefined);
    if (itemType === 'dead_letter' && resolution === 'resume') {
      startTransition(async () => {
        const preview = await previewHoldRedriveAction(itemId);
        startTransition(() => {
          if (!preview.ok) setResult(preview);
          else if (preview.data.brakes.length > 0)
            setBraked(preview.data.brakes.map((brake) => brake.message).join('; '));
          else setAsking({ data, resolution, preview: preview.data });
        });
      });
      return;
    }
    setAsking({ data, resolution });
  };

  const asked = asking ? confirmation(itemType, asking.resolution) : undefined;
  return (
    <form ref={form} onSubmit={submit} className="flex flex-wrap items-center gap-2" data-testid="clear-hold-form">
      <input type="hidden" name="holdId" value={holdId} />
      <Field label="Resolution" id={`resolution-${holdId}`} hideLabel>
        <Select name="resolution" size="sm" data-row-action>
          <option value="resume">{itemType === 'key' ? 'Run again' : 'Resume'}</option>
          <option value="discard">{itemType === 'key' ? 'Leave as done' : 'Discard'}</option>
        </Select>
      </Field>
      <Field label="Note" id={`note-${holdId}`} hideLabel>
        <Input name="note" required placeholder="Why (audited)" size="sm" className="min-w-0 flex-1" />
      </Field>
      <Button type="submit" variant="primary" pending={pending} pendingLabel="Clearing…">
        Clear
      </Button>
      <FormError result={result} className="w-full" />
      <ConfirmDialog
        open={asked !== undefined}
        title={asked?.title}
        confirmLabel={asked?.confirm}
        tone="danger"
        pending={pending}
        pendingLabel="Clearing…"
        onConfirm={() => asking && run(asking.data, asking.resolution)}
        onCancel={() => setAsking(undefined)}
        testId="clear-hold-confirm"
      >
        <p>{itemLabel}</p>
        <p className="mt-1">{asked?.body}</p>
        {asking?.preview ? (
          <>
            <p className="mt-1" data-testid="hold-redrive-outcome">
              Its failed step {redriveOutcomeLabels[asking.preview.outcome]}.
            </p>
            {asking.preview.lastFailedPermanently ? (
              <p className="mt-1 rounded-md bg-warn-soft px-2 py-1 text-warn" data-testid="hold-redrive-permanent">
                It last failed with a <strong>permanent</strong> error: redriven unchanged, it will most likely fail the
                same way.
              </p>
            ) : null}
          </>
        ) : null}
      </ConfirmDialog>
      {braked ? (
        <p className="w-full text-[12px] text-warn [overflow-wrap:anywhere]" data-testid="clear-braked">
          Not resumed: the redrive brakes refuse this dead letter now ({braked}).{' '}
          <Link href={`/dead-letters/${encodeURIComponent(itemId)}`} className="text-accent underline">
            Open the dead letter
          </Link>{' '}
          for its history{'; '}an admin may override the brakes there.
        </p>
      ) : null}
    </form>
  );
}
