'use client';

import Link from 'next/link';
import { useActionState, useEffect, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { refocus } from '@/components/console/focus-after-action';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { type OverrideFormValues, type SaveOverrideState, saveOverrideAction } from './actions';
import { overrideName } from './pricing-format';

const NEW_OVERRIDE: OverrideFormValues = {
  provider: '',
  model: '',
  inputPerMillion: '',
  outputPerMillion: '',
  cacheReadPerMillion: '',
  cacheWritePerMillion: '',
  reason: '',
};

/** What the toast says about a save. */
function outcomeOf({ result, values }: SaveOverrideState): { message: string; tone: 'success' | 'info' | 'error' } {
  if (!result.ok)
    return {
      message:
        result.code === 'INVALID_INPUT'
          ? 'Not saved: check the fields marked in the form.'
          : `Not saved: ${result.message}`,
      tone: 'error',
    };
  const name = overrideName({ provider: values.provider.trim().toLowerCase(), model: values.model.trim() }, true);
  if (result.data.created) return { message: `Price override added for ${name}.`, tone: 'success' };
  if (result.data.changed) return { message: `Price override changed for ${name}.`, tone: 'success' };
  return { message: `No change: ${name} already has these prices.`, tone: 'info' };
}

/** The four prices, each a number field whose errors the library names. */
const PRICES = [
  { name: 'inputPerMillion', label: 'Input ($ / M tokens)', required: true },
  { name: 'outputPerMillion', label: 'Output ($ / M tokens)', required: true },
  { name: 'cacheReadPerMillion', label: 'Cache read ($ / M tokens)', required: false },
  { name: 'cacheWritePerMillion', label: 'Cache write ($ / M tokens)', required: false },
] as const;

/** Adds an override, or (with `override`) changes the prices of one; every change needs a reason. */
export function OverrideForm({ override }: { override?: OverrideFormValues }) {
  const [state, submit, pending] = useActionState(saveOverrideAction, undefined);
  const refused = state && !state.result.ok ? state : undefined;
  const initial = refused?.values ?? (override ? { ...override, reason: '' } : NEW_OVERRIDE);
  const errors = refused?.result.ok === false ? (refused.result.fieldErrors ?? {}) : {};
  const toast = useToast();
  const saveButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!state) return;
    const { message, tone } = outcomeOf(state);
    toast.show(message, { tone });
    // Saving disabled the button, which drops focus: give it back.
    refocus(saveButton.current);
  }, [state, toast]);
  return (
    <form
      id="override-form"
      action={submit}
      className="mt-4 flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
      data-testid="override-form"
      aria-labelledby="override-form-title"
    >
      <h3 id="override-form-title" className="text-[13px] font-medium [overflow-wrap:anywhere]">
        {override
          ? `Change the prices of ${overrideName(override)}`
          : 'Add an override, or change one by its provider and model'}
      </h3>
      {override ? (
        <>
          <input type="hidden" name="provider" value={override.provider} />
          <input type="hidden" name="model" value={override.model} />
        </>
      ) : (
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,2fr)]">
          <Field
            id="override-provider"
            label="Provider"
            hint="As gen_ai.provider.name says it; blank for any provider"
            error={errors.provider}
            errorTestId="override-error-provider"
          >
            <Input
              name="provider"
              defaultValue={initial.provider}
              placeholder="any provider"
              onSurface
              className="w-full"
            />
          </Field>
          <Field id="override-model" label="Model" error={errors.model} errorTestId="override-error-model">
            <Input
              name="model"
              required
              defaultValue={initial.model}
              placeholder="e.g. gpt-4o-mini"
              onSurface
              className="w-full"
            />
          </Field>
        </div>
      )}
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {PRICES.map((price) => (
          <Field
            key={price.name}
            id={`override-${price.name}`}
            label={price.label}
            hint={price.required ? undefined : 'Blank: the input price'}
            error={errors[price.name]}
            errorTestId={`override-error-${price.name}`}
          >
            {/* No min: a negative price is refused by the server, which names it beside the field. */}
            <Input
              name={price.name}
              type="number"
              step="any"
              required={price.required}
              defaultValue={initial[price.name]}
              onSurface
              className="w-full"
            />
          </Field>
        ))}
      </div>
      <div className="flex flex-wrap items-end gap-3">
        <div className="w-full sm:w-auto sm:min-w-56 sm:flex-1">
          <Field
            id="override-reason"
            label="Reason (kept in the audit log)"
            error={errors.reason}
            errorTestId="override-error-reason"
          >
            <Input
              name="reason"
              required
              defaultValue={initial.reason}
              placeholder="e.g. enterprise agreement from 1 March"
              onSurface
              className="w-full"
            />
          </Field>
        </div>
        <Button ref={saveButton} type="submit" variant="primary" size="md" pending={pending} pendingLabel="Saving…">
          {override ? 'Save changes' : 'Save override'}
        </Button>
        {override ? (
          <Link href="/settings/pricing" className="py-1.5 text-[13px] text-accent hover:underline">
            Cancel
          </Link>
        ) : null}
      </div>
      <FormError result={state?.result}>
        {state?.result.ok === false && state.result.code === 'INVALID_INPUT' ? 'Check the fields marked above.' : null}
      </FormError>
    </form>
  );
}
