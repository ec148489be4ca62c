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

/**
 * Acts on exactly the ticked dead letters: one reason for all, redrive at
 * once, discard after a confirmation. Each item is its own audited action, so
 * the toast says what became of each; the ones refused stay ticked.
 */
export function SelectionBar({
  selected,
  pageSize,
  onSelectAll,
  onFinished,
}: {
  selected: number[];
  /** How many rows the page shows: "select all" ticks them all. */
  pageSize: number;
  onSelectAll: (on: boolean) => void;
  /** The ids that left the list (done or already done), for the table to untick and move focus. */
  onFinished: (settled: number[]) => void;
}) {
  const form = useRef<HTMLFormElement>(null);
  const toast = useToast();
  const [running, setRunning] = useState<Act>();
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<FailedAction>();
  const count = selected.length;
  const selectAll = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (selectAll.current) selectAll.current.indeterminate = count > 0 && count < pageSize;
  });

  const run = async (act: Act) => {
    const reason = form.current ? String(new FormData(form.current).get('reason') ?? '') : '';
    setConfirming(false);
    setRunning(act);
    const result = await actOnSelectionAction(act, { deadLetterIds: selected, reason });
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
        void run('redrive');
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
        Redrive {formatCount(count)} selected
      </Button>
      <Button
        onClick={() => {
          if (form.current?.reportValidity()) setConfirming(true);
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
        open={confirming}
        title={`Discard ${formatCount(count)} dead letter${count === 1 ? '' : 's'}?`}
        confirmLabel={`Discard ${formatCount(count)}`}
        cancelLabel="Keep them"
        tone="danger"
        onConfirm={() => void run('discard')}
        onCancel={() => setConfirming(false)}
        testId="confirm-discard-selection"
      >
        The ticked work is given up for good and its holds cleared as discarded. Your reason goes in the audit log for
        each one.
      </ConfirmDialog>
    </form>
  );
}
