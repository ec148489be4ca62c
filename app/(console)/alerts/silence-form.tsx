'use client';

import { useActionState, useEffect, useRef, useState } from 'react';
import { refocus } from '@/components/console/focus-after-action';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { Textarea } from '@/components/ui/textarea';
import { useTimeZone } from '@/components/ui/time';
import { MAX_IDENTITY_PATTERN, MAX_SILENCE_REASON, SILENCE_DURATIONS } from '@holdfast/protocol/inputs/silence-input';
import { alertKinds } from '@holdfast/protocol/enums';
import { createSilenceAction } from './actions';
import { alertKindLabels } from './alert-labels';

/** What the form starts with: blank, or an alert's rule and subject ("Silence like this…" in the history). */
export interface SilencePrefill {
  kind?: string;
  identityPattern?: string;
  team?: string;
}

/**
 * A datetime-local value ("2026-12-01T14:30") as an instant: in UTC when the console shows UTC, else in the
 * browser's zone, so the end a person types means what the times around it on the page mean.
 */
function instantOf(local: string, zone: 'utc' | 'local'): string {
  if (local === '') return '';
  const instant = new Date(zone === 'utc' ? `${local}Z` : local);
  return Number.isNaN(instant.getTime()) ? local : instant.toISOString();
}

/**
 * Silences a rule's alerts for a while: recorded, not sent, not counted. The result says how many alerts firing now
 * it matches, so a pattern that caught nothing (or everything) shows at once.
 */
export function SilenceForm({ prefill }: { prefill: SilencePrefill }) {
  const [state, submit, pending] = useActionState(createSilenceAction, undefined);
  const result = state?.result;
  const errors = result?.ok === false ? (result.fieldErrors ?? {}) : {};
  const values = state?.values ?? {
    kind: prefill.kind ?? '',
    identityPattern: prefill.identityPattern ?? '',
    team: prefill.team ?? '',
    duration: '60',
    endsAt: '',
    reason: '',
  };
  const [duration, setDuration] = useState(values.duration);
  const [localEnd, setLocalEnd] = useState('');
  const { zone } = useTimeZone();
  const submitButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (result) refocus(submitButton.current);
  }, [result]);

  return (
    <form
      action={submit}
      className="mb-5 flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
      data-testid="silence-form"
      aria-labelledby="silence-form-title"
    >
      <h2 id="silence-form-title" className="text-[13px] font-medium">
        Silence alerts
      </h2>
      <p className="max-w-prose text-[12px] text-muted">
        Alerts a silence matches are still recorded and listed, but not sent to the channels and not counted as waiting
        for someone. If one still fires when the silence ends, it is sent then.
      </p>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4">
        <Field id="silence-kind" label="Rule" error={errors.kind} errorTestId="silence-error-kind">
          <Select name="kind" defaultValue={values.kind} onSurface className="w-full">
            <option value="">Any rule</option>
            {alertKinds.map((kind) => (
              <option key={kind} value={kind}>
                {alertKindLabels[kind].title}
              </option>
            ))}
          </Select>
        </Field>
        <Field
          id="silence-subject"
          label="Subject (optional)"
          hint="As the history names it: step:agent/step, queue:name, lock:slot; * for any text"
          error={errors.identityPattern}
          errorTestId="silence-error-subject"
        >
          <Input
            name="identityPattern"
            defaultValue={values.identityPattern}
            maxLength={MAX_IDENTITY_PATTERN}
            autoComplete="off"
            spellCheck={false}
            placeholder="every subject"
            onSurface
            className="w-full"
          />
        </Field>
        <Field
          id="silence-team"
          label="Team (optional)"
          hint="Only alerts routed to this team"
          error={errors.team}
          errorTestId="silence-error-team"
        >
          <Input name="team" defaultValue={values.team} placeholder="any team" onSurface className="w-full" />
        </Field>
        <Field id="silence-duration" label="For how long" error={errors.forMinutes}>
          <Select
            name="duration"
            value={duration}
            onChange={(event) => setDuration(event.target.value)}
            onSurface
            className="w-full"
          >
            {SILENCE_DURATIONS.map((choice) => (
              <option key={choice.minutes} value={String(choice.minutes)}>
                {choice.label}
              </option>
            ))}
            <option value="custom">until a time…</option>
          </Select>
        </Field>
        {duration === 'custom' ? (
          <Field
            id="silence-ends-at"
            label={`Ends at (${zone === 'utc' ? 'UTC' : 'your time'})`}
            hint="At most 30 days ahead"
            error={errors.endsAt}
            errorTestId="silence-error-ends-at"
          >
            <Input
              type="datetime-local"
              required
              value={localEnd}
              onChange={(event) => setLocalEnd(event.target.value)}
              onSurface
              className="w-full"
            />
          </Field>
        ) : null}
        <input type="hidden" name="endsAt" value={duration === 'custom' ? instantOf(localEnd, zone) : ''} />
        <Field
          id="silence-reason"
          label="Reason"
          hint="What the others on call should know: why these alerts may stay quiet"
          error={errors.reason}
          errorTestId="silence-error-reason"
          className="sm:col-span-2 xl:col-span-4"
        >
          <Textarea
            name="reason"
            required
            rows={2}
            maxLength={MAX_SILENCE_REASON}
            defaultValue={values.reason}
            onSurface
            className="w-full"
          />
        </Field>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button
          ref={submitButton}
          type="submit"
          variant="primary"
          size="md"
          pending={pending}
          pendingLabel="Silencing…"
        >
          Silence
        </Button>
        {result?.ok ? (
          <p role="status" className="text-[12px]" data-testid="silence-created">
            {result.data.created ? 'Silenced' : 'Already silenced: the same silence is in force'} (silence{' '}
            {result.data.silenceId}): it matches {result.data.matchingFiring} alert
            {result.data.matchingFiring === 1 ? '' : 's'} firing now.
          </p>
        ) : null}
      </div>
      <FormError result={result} testId="silence-form-error">
        {result?.ok === false && result.code === 'INVALID_INPUT' ? 'Check the fields marked above.' : null}
      </FormError>
    </form>
  );
}
