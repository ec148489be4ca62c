'use client';

import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { FormError, type FailedAction } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { formatCount } from '@/lib/console/format';
import { actOnSelectionAction } from './actions';
import type { SelectionItemResult } from './selection-input';

type Act = 'redrive' | 'discard';

/** One sentence for the toast: how many took effect, and why the others did not. */
export function describeSelectionResults(act: Act, results: SelectionItemResult[]): string {
  const verb = act === 'redrive' ? 'Redriven' : 'Discarded';
  const done = results.filter((result) => result.outcome === 'done').length;
  const already = results.filter((result) => result.outcome === 'already_done').length;
  const refused = results.filter((result) => result.outcome === 'refused');
  const parts = [`${verb} ${formatCount(done)} of ${formatCount(results.length)} selected`];
  if (already > 0) parts.push(`${formatCount(already)} already done`);
  for (const result of refused.slice(0, 3)) parts.push(`${result.deadLetterId} refused: ${result.message}`);
  if (refused.length > 3) parts.push(`${formatCount(refused.length - 3)} more refused`);
  return `${parts.join('; ')}.`;
}

/** What the confirmation lists of each ticked dead letter. */
export interface SelectedLetter {
  id: number;
  taskId: string;
  agent: string;
  step: string;
  errorClass: string | null;
  /** The brake that refuses its redrive now, said in words. */
  brakedBy?: string;
}

/** The most ticked items a confirmation names one by one; the rest are counted. */
const LISTED = 20;

/**
 * Acts on exactly the ticked dead letters: one reason for all, each act after a
 * confirmation that lists the items it takes (and which a brake will refuse).
 * Each item is its own audited action, so the toast says what became of each;
 * the ones refused stay ticked.
 */
export function SelectionBar({
  selected,
  pageSize,
  onSelectAll,
  onFinished,
}: {
  selected: SelectedLetter[];
  /** How many rows the page shows: "select all" ticks them all. */
  pageSize: number;
  onSelectAll: (on: boolean) => void;
  /** The ids that left the list (done or already done), for the table to untick and move focus. */
  onFinished: (settled: number[]) => void;
}) {
  const form = useRef<HTMLFormElement>(null);
  const toast = useToast();
  const [running, setRunning] = useState<Act>();
  const [confirming, setConfirming] = useState<Act>();
  const [failure, setFailure] = useState<FailedAction>();
  const count = selected.length;
  const selectAll = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (selectAll.current) selectAll.current.indeterminate = count > 0 && count < pageSize;
  });

  const run = async (act: Act) => {
    const reason = form.current ? String(new FormData(form.current).get('reason') ?? '') : '';
    setConfirming(undefined);
    setRunning(act);
    const result = await actOnSelectionAction(act, { deadLetterIds: selected.map((letter) => letter.id), reason });
    setRunning(undefined);
    if (!result.ok) {
      setFailure(result);
      toast.show(result.message, { tone: 'error' });
      return;
    }
    setFailure(undefined);
    const allDone = result.data.every((item) => item.outcome !== 'refused');
    toast.show(describeSelectionResults(act, result.data), { tone: allDone ? 'success' : 'error' });
    onFinished(result.data.filter((item) => item.outcome !== 'refused').map((item) => item.deadLetterId));
    if (allDone) form.current?.reset();
  };

  return (
    <form
      ref={form}
      aria-label="Act on the ticked dead letters"
      className="mb-3 flex flex-wrap items-center gap-2 rounded-lg border border-line bg-surface px-3 py-2"
      data-testid="dead-letter-selection"
      onSubmit={(event) => {
        event.preventDefault();
        setConfirming('redrive');
      }}
    >
      <label className="flex items-center gap-1.5 text-[13px]">
        <input
          ref={selectAll}
          type="checkbox"
          checked={count > 0 && count === pageSize}
          onChange={(event) => onSelectAll(event.target.checked)}
          data-testid="select-all-dead-letters"
        />
        Select all on this page
      </label>
      <span className="text-[13px] tabular-nums text-muted" data-testid="selection-count" aria-live="polite">
        {formatCount(count)} selected
      </span>
      <Field label="Reason for the selected" hideLabel>
        <Input
          name="reason"
          required
          placeholder="Why (kept in the audit log for each)"
          size="sm"
          className="min-w-48 flex-1"
        />
      </Field>
      <Button
        type="submit"
        variant="primary"
        disabled={count === 0 || running !== undefined}
        pending={running === 'redrive'}
        pendingLabel="Redriving…"
        data-testid="selection-redrive"
      >
        Redrive {formatCount(count)} selected…
      </Button>
      <Button
        onClick={() => {
          if (form.current?.reportValidity()) setConfirming('discard');
        }}
        disabled={count === 0 || running !== undefined}
        pending={running === 'discard'}
        pendingLabel="Discarding…"
        data-testid="selection-discard"
      >
        Discard {formatCount(count)} selected…
      </Button>
      <FormError result={failure} className="w-full" />
      <ConfirmDialog
        open={confirming === 'redrive'}
        title={`Redrive ${formatCount(count)} dead letter${count === 1 ? '' : 's'}?`}
        confirmLabel={`Redrive ${formatCount(count)}`}
        cancelLabel="Not yet"
        onConfirm={() => void run('redrive')}
        onCancel={() => setConfirming(undefined)}
        testId="confirm-redrive-selection"
      >
        Each goes back onto its queue to run again, with your reason in the audit log.
        <SelectedList letters={selected} />
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'discard'}
        title={`Discard ${formatCount(count)} dead letter${count === 1 ? '' : 's'}?`}
        confirmLabel={`Discard ${formatCount(count)}`}
        cancelLabel="Keep them"
        tone="danger"
        onConfirm={() => void run('discard')}
        onCancel={() => setConfirming(undefined)}
        testId="confirm-discard-selection"
      >
        The ticked work is given up for good and its holds cleared as discarded. Your reason goes in the audit log for
        each one.
        <SelectedList letters={selected} />
      </ConfirmDialog>
    </form>
  );
}

/** The ticked items, each by its id, task, step and error class; those a brake will refuse now are said so. */
function SelectedList({ letters }: { letters: SelectedLetter[] }) {
  const braked = letters.filter((letter) => letter.brakedBy).length;
  return (
    <>
      <ul className="mt-2 max-h-56 overflow-y-auto text-[12px]" data-testid="selection-preview">
        {letters.slice(0, LISTED).map((letter) => (
          <li key={letter.id} className="[overflow-wrap:anywhere]" data-testid={`selection-preview-${letter.id}`}>
            <span className="font-mono">#{letter.id}</span> {letter.agent}/{letter.step} · task {letter.taskId}
            {letter.errorClass ? ` · ${letter.errorClass}` : ''}
            {letter.brakedBy ? <span className="text-warn"> · refused now: {letter.brakedBy}</span> : null}
          </li>
        ))}
      </ul>
      {letters.length > LISTED ? (
        <p className="mt-1 text-[12px] text-muted">and {formatCount(letters.length - LISTED)} more</p>
      ) : null}
      {braked > 0 ? (
        <p className="mt-1 text-[12px] text-warn" data-testid="selection-preview-braked">
          {formatCount(braked)} of them a brake refuses now: they stay pending and ticked.
        </p>
      ) : null}
    </>
  );
}
