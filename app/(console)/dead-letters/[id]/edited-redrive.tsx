'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { FormError, type FailedAction } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { useToast } from '@/components/ui/toast';
import { payloadChanges, type PayloadChange } from '@holdfast/protocol/inputs/payload-edit-input';
import { readJson } from '@/lib/console/read-json';
import { redriveEditedAction } from '../actions';

/** Changes listed under the editor; the confirmation and the audit record count them all. */
const SHOWN_CHANGES = 12;

function describeChange(change: PayloadChange): string {
  const show = (value: unknown) => JSON.stringify(value) ?? 'null';
  if (change.change === 'added') return `${change.path} added: ${show(change.after)}`;
  if (change.change === 'removed') return `${change.path} removed (was ${show(change.before)})`;
  return `${change.path}: ${show(change.before)} → ${show(change.after)}`;
}

/**
 * Redrive with an edited payload: a JSON editor (checked as one types, with the
 * changes listed), a reason, and a confirmation that says what happens: new
 * content runs as a new task, whose steps run again under new keys, while the
 * old task and its stored results stay. The brakes apply as to any redrive;
 * an admin may override them here too.
 */
export function EditedRedrive({
  deadLetterId,
  taskId,
  runsAsTaskId,
  payloadJson,
  brakedBy,
  canOverride,
  statusId,
}: {
  deadLetterId: number;
  taskId: string;
  /** The task an edited payload runs as (editedTaskIdOf): its id ends with the dead letter's random nonce. */
  runsAsTaskId: string;
  /** The stored payload, formatted. */
  payloadJson: string;
  brakedBy?: string;
  canOverride: boolean;
  statusId: string;
}) {
  const router = useRouter();
  const toast = useToast();
  const form = useRef<HTMLFormElement>(null);
  const editor = useRef<HTMLTextAreaElement>(null);
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(payloadJson);
  const [override, setOverride] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [running, setRunning] = useState(false);
  const [failure, setFailure] = useState<FailedAction>();
  const original = useMemo(() => JSON.parse(payloadJson) as unknown, [payloadJson]);
  const reading = useMemo(() => readJson(text), [text]);
  const diff = useMemo(() => (reading.ok ? payloadChanges(original, reading.value) : undefined), [original, reading]);
  const braked = brakedBy !== undefined && !override;
  // Opening the editor takes the keyboard to it.
  useEffect(() => {
    if (open) editor.current?.focus();
  }, [open]);

  if (!open) {
    return (
      <Button onClick={() => setOpen(true)} data-testid="edit-payload-open">
        Edit payload and redrive…
      </Button>
    );
  }

  const submit = async () => {
    if (!form.current) return;
    const data = new FormData(form.current);
    setConfirming(false);
    setRunning(true);
    const result = await redriveEditedAction(data);
    setRunning(false);
    if (!result.ok) {
      setFailure(result);
      toast.show(`Dead letter ${deadLetterId}: ${result.message}`, { tone: 'error' });
      return;
    }
    setFailure(undefined);
    const { changed, edited, taskId: runsAs } = result.data;
    toast.show(
      !changed
        ? `Dead letter ${deadLetterId} was already redriven: nothing changed.`
        : edited
          ? `Dead letter ${deadLetterId} redriven as task ${runsAs} with the edited payload.`
          : `Dead letter ${deadLetterId} redriven: the payload was unchanged, so task ${runsAs} runs again.`,
      { tone: 'success' },
    );
    router.refresh();
    document.getElementById(statusId)?.focus();
  };

  const editorId = `payload-editor-${deadLetterId}`;
  return (
    <form
      ref={form}
      className="grid max-w-3xl gap-3"
      data-testid="edited-redrive"
      onSubmit={(event) => {
        event.preventDefault();
        if (reading.ok && !braked && form.current?.reportValidity()) setConfirming(true);
      }}
    >
      <input type="hidden" name="deadLetterId" value={deadLetterId} />
      <Field
        label="Payload (JSON)"
        id={editorId}
        hint="New content runs as a new task: its steps run again under new keys, and this task's stored results are kept."
        error={reading.ok ? undefined : `Not valid JSON: ${reading.message}`}
        errorTestId="payload-editor-error"
      >
        <Textarea
          ref={editor}
          name="payload"
          value={text}
          onChange={(event) => setText(event.target.value)}
          rows={Math.min(20, Math.max(6, payloadJson.split('\n').length + 1))}
          spellCheck={false}
          className="font-mono text-[12px]"
          data-testid="payload-editor"
        />
      </Field>
      <div className="flex flex-wrap items-center gap-2 text-[12px]" aria-live="polite" data-testid="payload-changes">
        {diff === undefined ? null : diff.total === 0 ? (
          <span className="text-muted">No change yet: redriving now is a plain redrive of this task.</span>
        ) : (
          <span>
            {diff.total} change{diff.total === 1 ? '' : 's'}:
          </span>
        )}
        <Button size="sm" onClick={() => setText(payloadJson)} disabled={text === payloadJson}>
          Undo edits
        </Button>
        <Button
          size="sm"
          onClick={() => reading.ok && setText(JSON.stringify(reading.value, null, 2))}
          disabled={!reading.ok}
        >
          Format
        </Button>
      </div>
      {diff && diff.total > 0 ? (
        <ul className="grid gap-0.5 font-mono text-[12px] [overflow-wrap:anywhere]" data-testid="payload-change-list">
          {diff.changes.slice(0, SHOWN_CHANGES).map((change) => (
            <li key={`${change.path}-${change.change}`}>{describeChange(change)}</li>
          ))}
          {diff.total > SHOWN_CHANGES ? <li className="text-muted">and {diff.total - SHOWN_CHANGES} more</li> : null}
        </ul>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <Field label="Reason" hideLabel>
          <Input name="reason" required placeholder="Why (audited)" size="sm" className="min-w-40 flex-1" />
        </Field>
        {brakedBy && canOverride ? (
          <label className="flex items-center gap-1.5 text-[12px]">
            <input
              type="checkbox"
              name="overrideBrakes"
              checked={override}
              onChange={(event) => setOverride(event.target.checked)}
            />
            Override the brakes
          </label>
        ) : null}
        <Button
          type="submit"
          variant="primary"
          disabled={!reading.ok || braked || running}
          pending={running}
          pendingLabel="Redriving…"
          data-testid="edited-redrive-submit"
        >
          Redrive with this payload…
        </Button>
        <Button onClick={() => setOpen(false)} disabled={running}>
          Close
        </Button>
      </div>
      {braked ? (
        <p className="text-[12px] text-muted">
          Redrive braked: {brakedBy}.{canOverride ? ' Tick the override to redrive anyway.' : ''}
        </p>
      ) : null}
      <FormError result={failure} />
      <ConfirmDialog
        open={confirming}
        title={`Redrive dead letter ${deadLetterId} with ${diff?.total ? 'the edited' : 'its'} payload?`}
        confirmLabel="Redrive"
        cancelLabel="Keep editing"
        onConfirm={() => void submit()}
        onCancel={() => setConfirming(false)}
        testId="confirm-edited-redrive"
      >
        {diff?.total ? (
          <>
            It runs as a new task, <span className="font-mono [overflow-wrap:anywhere]">{runsAsTaskId}</span>: its steps
            run again under new keys, and task <span className="font-mono">{taskId}</span> keeps its stored results. The{' '}
            {diff.total === 1 ? 'change goes' : `${diff.total} changes go`} in the audit record with your reason.
          </>
        ) : (
          <>
            The payload is unchanged, so this is a plain redrive: task {taskId} runs again and its completed steps
            replay.
          </>
        )}
        {override ? ' You override the redrive brakes.' : ''}
      </ConfirmDialog>
    </form>
  );
}
