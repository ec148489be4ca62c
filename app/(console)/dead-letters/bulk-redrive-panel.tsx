'use client';

import { useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import type { DeadLetterFilter, RedriveBrakeRule, RedriveOutcome } from '@holdfast/engine/core';
import type { BulkRedrive } from '@holdfast/engine/db/schema';
import { formatCount, formatMicros } from '@/lib/console/format';
import { redriveOutcomeLabels } from '@/lib/console/labels/redrive-outcomes';
import { cancelBulkRedriveAction, previewBulkRedriveAction, startBulkRedriveAction } from './actions';
import { BrakedCounts } from './braked-counts';
import type { BulkRedrivePreviewData } from './bulk-redrive-preview-data';

const LIST_REFRESH_MS = 2_000;

/**
 * Redrive every pending dead letter matching the page's filter: a preview of
 * what will happen first, then a confirmed run at a rate limit, with progress
 * and cancel. The run is recorded on the server, so closing the page does not stop it.
 * Items the redrive brakes refuse are skipped; the preview counts them per brake.
 */
export function BulkRedrivePanel({
  filter,
  matching,
  brakeLabels,
}: {
  filter: DeadLetterFilter;
  matching: number;
  /** What each brake's count means, with the deployment's limits. */
  brakeLabels: Record<RedriveBrakeRule, string>;
}) {
  const router = useRouter();
  // While a run goes on, the list is refreshed at most every 2 s, so redriven rows leave it as they are done.
  const lastRefresh = useRef(0);
  const refreshList = useCallback(() => {
    if (Date.now() - lastRefresh.current < LIST_REFRESH_MS) return;
    lastRefresh.current = Date.now();
    router.refresh();
  }, [router]);
  const toast = useToast();
  const [preview, setPreview] = useState<BulkRedrivePreviewData>();
  const [requestId, setRequestId] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [runId, setRunId] = useState<number>();
  const [open, setOpen] = useState(false);

  const openPreview = async () => {
    setBusy(true);
    setError(undefined);
    const result = await previewBulkRedriveAction(filter);
    setBusy(false);
    if (!result.ok) return setError(result.message);
    setPreview(result.data);
    // One id per confirmation: a double click on Confirm starts one run.
    setRequestId(crypto.randomUUID());
    setOpen(true);
  };

  const confirm = async (form: FormData) => {
    if (!requestId) return;
    setBusy(true);
    const result = await startBulkRedriveAction({
      requestId,
      filter,
      reason: String(form.get('reason') ?? ''),
      ratePerSecond: Number(form.get('ratePerSecond') ?? 20),
    });
    setBusy(false);
    if (!result.ok) return setError(result.message);
    setOpen(false);
    setRunId(result.data.id);
    toast.show(
      `Bulk redrive ${result.data.id} started: ${formatCount(result.data.total)} matching, at ${formatCount(result.data.ratePerSecond)} a second.`,
      { tone: 'info' },
    );
  };

  const toRedrive = preview ? preview.total - preview.brakedTotal : 0;
  return (
    <section aria-label="Bulk redrive" className="flex flex-wrap items-center gap-3">
      <Button
        variant="primary"
        size="md"
        onClick={openPreview}
        disabled={busy || matching === 0}
        data-testid="bulk-redrive-open"
      >
        {busy && !preview ? 'Preparing the preview…' : `Redrive all ${formatCount(matching)} matching…`}
      </Button>
      <FormError result={error === undefined ? undefined : { ok: false, message: error }} />
      {runId ? (
        <BulkRedriveProgress
          runId={runId}
          onProgress={refreshList}
          onFinished={(run) => {
            toast.show(
              `Bulk redrive ${run.id} ${run.status}: ${formatCount(run.redriven)} redriven, ${formatCount(run.skipped)} skipped.`,
              { tone: run.status === 'completed' ? 'success' : 'info' },
            );
            router.refresh();
          }}
        />
      ) : null}

      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={preview ? `Redrive ${formatCount(preview.total)} dead letter${preview.total === 1 ? '' : 's'}?` : ''}
        testId="bulk-redrive-dialog"
      >
        {preview ? (
          <form action={confirm} className="flex flex-col gap-3">
            {preview.brakedTotal > 0 ? <BrakedCounts preview={preview} labels={brakeLabels} /> : null}
            {preview.lastFailedPermanently > 0 ? (
              <p
                className="rounded-md bg-warn-soft px-3 py-2 text-[13px] text-warn"
                data-testid="bulk-redrive-permanent"
              >
                <span className="tabular-nums font-medium">{formatCount(preview.lastFailedPermanently)}</span> of the{' '}
                {formatCount(toRedrive)} to redrive last failed with a <strong>permanent</strong> error: redriven
                unchanged, they will most likely fail the same way. Fix the cause first, or redrive one with an edited
                payload from its page.
              </p>
            ) : null}
            <p className="text-[13px] text-muted">
              What will happen to{' '}
              {preview.brakedTotal > 0 ? 'the failed step of each one redriven' : "each one's failed step"}, judged from
              its key now:
            </p>
            <ul className="text-[13px]" data-testid="bulk-redrive-outcomes">
              {(Object.keys(redriveOutcomeLabels) as RedriveOutcome[])
                .filter((outcome) => preview.outcomes[outcome] > 0)
                .map((outcome) => (
                  <li key={outcome}>
                    <span className="tabular-nums font-medium">{formatCount(preview.outcomes[outcome])}</span>{' '}
                    {redriveOutcomeLabels[outcome]}
                  </li>
                ))}
            </ul>
            {preview.sample.length > 0 ? (
              <div className="text-[12px]">
                <p className="text-muted">
                  {preview.sample.length < preview.total
                    ? `The first ${formatCount(preview.sample.length)} of them:`
                    : 'Each of them:'}
                </p>
                <ul className="max-h-40 overflow-y-auto" data-testid="bulk-redrive-sample">
                  {preview.sample.map((item) => (
                    <li key={item.id} className="[overflow-wrap:anywhere]" data-testid={`bulk-redrive-item-${item.id}`}>
                      <span className="font-mono">#{item.id}</span> task {item.taskId} ·{' '}
                      {item.brakes.length > 0 ? (
                        <span className="text-warn">
                          skipped: {item.brakes.map((rule) => brakeLabels[rule]).join('; ')}
                        </span>
                      ) : (
                        redriveOutcomeLabels[item.outcome as RedriveOutcome]
                      )}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
            <p className="text-[13px]" data-testid="bulk-redrive-spend">
              Expected spend:{' '}
              {preview.expectedSpendMicros === null
                ? 'unknown (no recent history for these steps)'
                : `about ${formatMicros(preview.expectedSpendMicros)}, from the steps' recent average cost`}
            </p>
            <Field label="Reason (kept in the audit log)">
              <Input name="reason" required />
            </Field>
            <Field label="Items per second">
              <Input
                name="ratePerSecond"
                type="number"
                min={1}
                max={1000}
                defaultValue={20}
                required
                className="w-32"
              />
            </Field>
            <div className="flex justify-end gap-2">
              <Button size="md" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <Button
                type="submit"
                variant="primary"
                size="md"
                disabled={toRedrive === 0}
                pending={busy}
                pendingLabel="Starting…"
              >
                {`Redrive ${formatCount(toRedrive)}`}
              </Button>
            </div>
          </form>
        ) : null}
      </Dialog>
    </section>
  );
}

async function fetchRun(id: number): Promise<BulkRedrive> {
  const response = await fetch(`/api/console/bulk-redrives/${id}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`Progress unavailable (HTTP ${response.status})`);
  return response.json() as Promise<BulkRedrive>;
}

/** A run's progress, polled until it ends, with cancel while it runs. */
export function BulkRedriveProgress({
  runId,
  onFinished,
  onProgress,
}: {
  runId: number;
  onFinished?: (run: BulkRedrive) => void;
  /** Called as items are done while the run goes on (the list behind it may refresh). */
  onProgress?: () => void;
}) {
  const query = useQuery({
    queryKey: ['bulk-redrive', runId],
    queryFn: () => fetchRun(runId),
    refetchInterval: (current) => (current.state.data?.status === 'running' ? 500 : false),
  });
  const [cancelNote, setCancelNote] = useState<string>();
  const toast = useToast();
  const run = query.data;
  const finished = run !== undefined && run.status !== 'running' ? run : undefined;
  const processedWhileRunning = run?.status === 'running' ? run.processed : 0;
  useEffect(() => {
    if (processedWhileRunning > 0) onProgress?.();
  }, [processedWhileRunning, onProgress]);
  // Told once per run, whatever the parent re-renders.
  const told = useRef(false);
  useEffect(() => {
    if (finished && !told.current) {
      told.current = true;
      onFinished?.(finished);
    }
  }, [finished, onFinished]);

  if (!run)
    return (
      <p className="text-[12px] text-muted">{query.isError ? 'Progress unavailable; the run goes on.' : 'Starting…'}</p>
    );
  const cancel = async () => {
    const result = await cancelBulkRedriveAction(runId);
    const note = result.ok
      ? result.data.changed
        ? 'Cancelling after the current batch…'
        : 'Already ending.'
      : result.message;
    setCancelNote(note);
    toast.show(`Bulk redrive ${runId}: ${note}`, { tone: result.ok ? 'info' : 'error' });
  };
  return (
    <div className="flex min-w-72 flex-1 flex-wrap items-center gap-2" data-testid={`bulk-redrive-progress-${runId}`}>
      <progress
        max={run.total}
        value={run.processed}
        aria-label={`Bulk redrive ${runId}: ${run.processed} of ${run.total} done`}
        className="h-2 w-48 accent-[var(--accent)]"
      />
      <span role="status" className="text-[12px] tabular-nums">
        {formatCount(run.processed)} / {formatCount(run.total)} · {formatCount(run.redriven)} redriven,{' '}
        {formatCount(run.skipped)} skipped · <span data-testid="bulk-redrive-status">{run.status}</span>
      </span>
      {run.status === 'running' ? <Button onClick={cancel}>Cancel run</Button> : null}
      {cancelNote ? <span className="text-[12px] text-muted">{cancelNote}</span> : null}
    </div>
  );
}
