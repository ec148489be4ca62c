'use client';

import { useActionState, useEffect, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { refocus } from '@/components/console/focus-after-action';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { type SaveStatusesState, saveStatusesAction } from './actions';
import { statusList } from './pricing-format';

function outcomeOf({ result }: SaveStatusesState): { message: string; tone: 'success' | 'info' | 'error' } {
  if (!result.ok)
    return {
      message:
        result.code === 'INVALID_INPUT'
          ? 'Not saved: check the statuses and the reason.'
          : `Not saved: ${result.message}`,
      tone: 'error',
    };
  const list = result.data.statuses.length > 0 ? statusList(result.data.statuses) : 'none';
  return result.data.changed
    ? { message: `Refused statuses saved: ${list}.`, tone: 'success' }
    : { message: `No change: the refused statuses are already ${list}.`, tone: 'info' };
}

/** The failed-call rule's statuses as one comma-separated list, replaced whole, with a reason. */
export function StatusesForm({ statuses }: { statuses: string }) {
  const [state, submit, pending] = useActionState(saveStatusesAction, undefined);
  const refused = state && !state.result.ok ? state : undefined;
  const initial = refused?.values ?? { statuses, reason: '' };
  const errors = refused?.result.ok === false ? (refused.result.fieldErrors ?? {}) : {};
  const toast = useToast();
  const saveButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!state) return;
    const { message, tone } = outcomeOf(state);
    toast.show(message, { tone });
    refocus(saveButton.current);
  }, [state, toast]);
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
      <div className="flex flex-wrap items-end gap-3">
        <div className="w-full sm:w-auto sm:min-w-56 sm:flex-1">
          <Field
            id="statuses-reason"
            label="Reason (kept in the audit log)"
            error={errors.reason}
            errorTestId="statuses-error-reason"
          >
            <Input
              name="reason"
              required
              defaultValue={initial.reason}
              placeholder="e.g. our gateway answers 409 before calling the model"
              onSurface
              className="w-full"
            />
          </Field>
        </div>
        <Button ref={saveButton} type="submit" variant="primary" size="md" pending={pending} pendingLabel="Saving…">
          Save statuses
        </Button>
      </div>
      <FormError result={state?.result}>
        {state?.result.ok === false && state.result.code === 'INVALID_INPUT' ? 'Check the fields marked above.' : null}
      </FormError>
    </form>
  );
}
