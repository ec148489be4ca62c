'use client';

import { useId, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { useConfirmedAction } from '@/components/console/use-confirmed-action';
import { endRampAction, resumePauseAction, setPauseAction } from './actions';
import { ReasonField } from '@/components/console/reason-field';
import { ConfirmAsked } from '@/components/console/confirm-asked';

type Scope = 'step' | 'agent' | 'downstream';

const DURATIONS = [
  { value: '', label: 'Until resumed' },
  { value: '15', label: '15 minutes' },
  { value: '60', label: '1 hour' },
  { value: '240', label: '4 hours' },
  { value: '1440', label: '1 day' },
];

/** What the confirmation says will be paused, from the form as filled in. */
function targetOf(data: FormData): string {
  const scope = String(data.get('scope') ?? '');
  if (scope === 'step') return `step ${data.get('agent')}/${data.get('step')}`;
  if (scope === 'agent') return `every step of agent ${data.get('agent')}`;
  return `every step that calls ${data.get('downstream')}`;
}

/**
 * Pauses a step, its agent, or (on the Pauses page) any step, agent or
 * downstream. Asks first, saying what agents will be told; the outcome is
 * announced, and a target someone else paused first is named, not paused twice.
 * `step` fixes the target to one step (its page), offering its agent too.
 */
export function PauseForm({ step, headingId }: { step?: { agent: string; step: string }; headingId: string }) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const [scope, setScope] = useState<Scope>('step');
  const confirmed = useConfirmedAction({
    action: (data) => setPauseAction(undefined, data),
    form,
    headingId,
    after: 'heading',
    succeeded: ({ paused, message }, data) =>
      paused ? `Paused ${targetOf(data)}.` : { text: `Nothing changed: ${message}.`, tone: 'info' },
    refused: 'Not paused',
    afterSuccess: ({ paused }) => {
      if (!paused) return;
      form.current?.reset();
      setScope('step');
    },
  });
  const { asking, submit, pending, result } = confirmed;
  const errors = result && !result.ok ? result.fieldErrors : undefined;

  return (
    <form ref={form} onSubmit={submit} className="flex flex-wrap items-end gap-3" data-testid="pause-form">
      {step ? (
        <>
          <input type="hidden" name="agent" value={step.agent} />
          <input type="hidden" name="step" value={step.step} />
          <Field label="What to pause" id={`${id}-scope`}>
            <Select name="scope" size="sm" value={scope} onChange={(event) => setScope(event.target.value as Scope)}>
              <option value="step">This step</option>
              <option value="agent">Every step of {step.agent}</option>
            </Select>
          </Field>
        </>
      ) : (
        <>
          <Field label="What to pause" id={`${id}-scope`}>
            <Select name="scope" size="sm" value={scope} onChange={(event) => setScope(event.target.value as Scope)}>
              <option value="step">A step</option>
              <option value="agent">An agent (every step)</option>
              <option value="downstream">A downstream (every step that calls it)</option>
            </Select>
          </Field>
          {scope === 'downstream' ? (
            <Field label="Downstream" id={`${id}-downstream`} error={errors?.downstream}>
              <Input name="downstream" required size="sm" placeholder="e.g. openai" autoComplete="off" />
            </Field>
          ) : (
            <Field label="Agent" id={`${id}-agent`} error={errors?.agent}>
              <Input name="agent" required size="sm" autoComplete="off" />
            </Field>
          )}
          {scope === 'step' ? (
            <Field label="Step" id={`${id}-step`} error={errors?.step}>
              <Input name="step" required size="sm" autoComplete="off" />
            </Field>
          ) : null}
        </>
      )}
      <Field label="For" id={`${id}-for`} error={errors?.forMinutes}>
        <Select name="forMinutes" size="sm" defaultValue="">
          {DURATIONS.map((duration) => (
            <option key={duration.value} value={duration.value}>
              {duration.label}
            </option>
          ))}
        </Select>
      </Field>
      <ReasonField id={id} error={errors?.reason} placeholder="Why (agents and the audit log see it)" />
      <Button type="submit" variant="danger" pending={pending} pendingLabel="Pausing…">
        Pause…
      </Button>
      <FormError result={result} className="w-full" />
      <ConfirmAsked
        action={confirmed}
        title={asking ? `Pause ${targetOf(asking)}?` : 'Pause?'}
        confirmLabel="Pause"
        tone="danger"
        pendingLabel="Pausing…"
        testId="pause-confirm"
      >
        <p>
          Every begin it covers, first tries and retries alike, waits (PAUSED) until the pause ends or someone resumes
          it. Steps already running finish; a step that already completed still replays its result; nothing is
          dead-lettered because of the pause.
        </p>
      </ConfirmAsked>
    </form>
  );
}

/**
 * Resumes one pause, at once or with a ramp (begins per minute start at a rate
 * and rise by as much each minute until the ramp ends). Asks first; a pause
 * that no longer holds is named, and nothing changes.
 */
export function ResumeForm({ pauseId, target, headingId }: { pauseId: number; target: string; headingId: string }) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const [ramp, setRamp] = useState(false);
  const confirmed = useConfirmedAction({
    action: (data) => resumePauseAction(undefined, data),
    form,
    headingId,
    after: 'row',
    succeeded: ({ resumed, message }, data) =>
      resumed
        ? `${target} resumed${data.get('ramp') === 'on' ? ' with a ramp' : ''}.`
        : { text: `Nothing changed: ${message}.`, tone: 'info' },
    refused: `${target} not resumed`,
  });
  const { asking, submit, pending, result } = confirmed;
  const errors = result && !result.ok ? result.fieldErrors : undefined;

  return (
    <form ref={form} onSubmit={submit} className="flex flex-wrap items-end gap-2" data-testid="resume-form">
      <input type="hidden" name="pauseId" value={pauseId} />
      <RowReasonField id={id} label={`Reason for resuming ${target}`} />
      <label className="flex items-center gap-1.5 text-[12px]">
        <input type="checkbox" name="ramp" checked={ramp} onChange={(event) => setRamp(event.target.checked)} />
        Ramp up
      </label>
      {ramp ? (
        <>
          <Field label="Begins in the first minute" id={`${id}-start`} error={errors?.['ramp.startPerMinute']}>
            <Input name="startPerMinute" type="number" min={1} required size="sm" defaultValue={10} className="w-24" />
          </Field>
          <Field label="Unlimited after (minutes)" id={`${id}-over`} error={errors?.['ramp.overMinutes']}>
            <Input name="overMinutes" type="number" min={1} required size="sm" defaultValue={10} className="w-24" />
          </Field>
        </>
      ) : null}
      <Button type="submit" pending={pending} pendingLabel="Resuming…">
        Resume…
      </Button>
      <FormError result={result} className="w-full" />
      <ConfirmAsked
        action={confirmed}
        title={`Resume ${target}?`}
        confirmLabel="Resume"
        pendingLabel="Resuming…"
        testId="resume-confirm"
      >
        <p>
          {asking?.get('ramp') === 'on'
            ? `Begins resume at ${asking.get('startPerMinute')} in the first minute, rising by as much each minute; after ${asking.get('overMinutes')} minutes they are no longer limited. Agents waiting begin again at their next try.`
            : 'Every waiting agent may begin again at its next try, all at once. With many waiting, consider a ramp.'}
        </p>
      </ConfirmAsked>
    </form>
  );
}

/** Ends a ramp early, for a row ramping up: asks first, with the reason it will keep. */
export function EndRampForm({ pauseId, target, headingId }: { pauseId: number; target: string; headingId: string }) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const confirmed = useConfirmedAction({
    action: (data) => endRampAction(undefined, data),
    form,
    headingId,
    after: 'row',
    succeeded: ({ ended, message }) =>
      ended
        ? `${target} runs unlimited again: the ramp ended.`
        : { text: `Nothing changed: ${message}.`, tone: 'info' },
    refused: `The ramp of ${target} not ended`,
  });
  const { submit, pending, result } = confirmed;
  return (
    <form ref={form} onSubmit={submit} className="flex flex-wrap items-end gap-2" data-testid="end-ramp-form">
      <input type="hidden" name="pauseId" value={pauseId} />
      <RowReasonField id={id} label={`Reason for ending the ramp of ${target}`} />
      <Button type="submit" pending={pending} pendingLabel="Ending…">
        End the ramp…
      </Button>
      <FormError result={result} className="w-full" />
      <ConfirmAsked
        action={confirmed}
        title={`End the ramp of ${target}?`}
        confirmLabel="End the ramp"
        testId="end-ramp-confirm"
      >
        <p>Every begin it covers runs again from now, no longer limited per minute.</p>
      </ConfirmAsked>
    </form>
  );
}

/** A row action's reason, named for a screen reader by what it is for; the row's first field. */
function RowReasonField({ id, label }: { id: string; label: string }) {
  return (
    <Field label={label} id={`${id}-reason`} hideLabel>
      <Input name="reason" required size="sm" placeholder="Why (audited)" className="min-w-40 flex-1" data-row-action />
    </Field>
  );
}
