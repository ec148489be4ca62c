'use client';

import { ReasonAndSave } from '@/components/console/reason-and-save';
import { type Saved, type SaveOutcome, useSavedForm } from '@/components/console/use-saved-form';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
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
function outcomeOf({ result, values }: Saved<SaveOverrideState>): SaveOutcome {
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
  const { state, submit, pending, refused, errors, saveButton } = useSavedForm(saveOverrideAction, outcomeOf);
  const initial = refused ?? (override ? { ...override, reason: '' } : NEW_OVERRIDE);
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
      <ReasonAndSave
        idPrefix="override"
        placeholder="e.g. enterprise agreement from 1 March"
        defaultValue={initial.reason}
        error={errors.reason}
        saveLabel={override ? 'Save changes' : 'Save override'}
        pending={pending}
        saveButton={saveButton}
        cancelHref={override ? '/settings/pricing' : undefined}
        result={state?.result}
      />
    </form>
  );
}
