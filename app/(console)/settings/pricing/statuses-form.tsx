'use client';

import { ReasonAndSave } from '@/components/console/reason-and-save';
import { type Saved, type SaveOutcome, useSavedForm } from '@/components/console/use-saved-form';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { type SaveStatusesState, saveStatusesAction } from './actions';
import { statusList } from './pricing-format';

function outcomeOf({ result }: Saved<SaveStatusesState>): SaveOutcome {
  const list = result.data.statuses.length > 0 ? statusList(result.data.statuses) : 'none';
  return result.data.changed
    ? { message: `Refused statuses saved: ${list}.`, tone: 'success' }
    : { message: `No change: the refused statuses are already ${list}.`, tone: 'info' };
}

/** The failed-call rule's statuses as one comma-separated list, replaced whole, with a reason. */
export function StatusesForm({ statuses }: { statuses: string }) {
  const { state, submit, pending, refused, errors, saveButton } = useSavedForm(
    saveStatusesAction,
    outcomeOf,
    'Not saved: check the statuses and the reason.',
  );
  const initial = refused ?? { statuses, reason: '' };
  return (
    <form
      action={submit}
      className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
      data-testid="statuses-form"
      aria-label="Failed-call rule"
    >
      <div className="max-w-xl">
        <Field
          id="refused-statuses"
          label="HTTP statuses of a refused call"
          hint="Comma-separated, each 400 to 599, e.g. 400, 401, 403, 404, 413, 422, 429. Blank: none."
          error={errors.statuses}
          errorTestId="statuses-error-statuses"
        >
          <Input
            name="statuses"
            defaultValue={initial.statuses}
            autoComplete="off"
            spellCheck={false}
            onSurface
            className="w-full font-mono"
          />
        </Field>
      </div>
      <ReasonAndSave
        idPrefix="statuses"
        placeholder="e.g. our gateway answers 409 first"
        defaultValue={initial.reason}
        error={errors.reason}
        saveLabel={'Save statuses'}
        pending={pending}
        saveButton={saveButton}
        result={state?.result}
      />
    </form>
  );
}
