'use client';

import { useActionState, useEffect, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import type { AlertKind } from '@holdfast/protocol/enums';
import { refocus } from '@/components/console/focus-after-action';
import { saveRuleAction } from './actions';
import { alertKindLabels, thresholdField, thresholdNames } from './alert-labels';

/** One rule, as an admin edits it: on or off, its thresholds with their units, and an optional reason. */
export function RuleForm({
  kind,
  enabled,
  thresholds,
}: {
  kind: AlertKind;
  enabled: boolean;
  thresholds: Record<string, number>;
}) {
  const [result, submit, pending] = useActionState(saveRuleAction, undefined);
  const errors = result?.ok === false ? (result.fieldErrors ?? {}) : {};
  const { title } = alertKindLabels[kind];
  const names = thresholdNames(thresholds);
  const toast = useToast();
  const saveButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!result) return;
    toast.show(
      result.ok
        ? result.data.changed
          ? `${title} saved: the next sweep uses these values.`
          : `${title}: no change, the rule already has these values.`
        : `${title} not saved: ${result.code === 'INVALID_INPUT' ? 'check the fields marked in the form.' : result.message}`,
      { tone: result.ok ? (result.data.changed ? 'success' : 'info') : 'error' },
    );
    // Saving disabled the button, which drops focus: give it back.
    refocus(saveButton.current);
  }, [result, toast, title]);
  return (
    <form action={submit} className="mt-3 flex flex-col gap-3" data-testid={`rule-form-${kind}`}>
      <input type="hidden" name="kind" value={kind} />
      <label className="flex items-center gap-2 text-[13px]">
        <input
          type="checkbox"
          name="enabled"
          defaultChecked={enabled}
          className="size-4 accent-accent"
          aria-describedby={`rule-${kind}-enabled-hint`}
        />
        Enabled
        <span id={`rule-${kind}-enabled-hint`} className="sr-only">
          {title}: a rule switched off fires nothing
        </span>
      </label>
      {names.length > 0 ? (
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          {names.map((name) => {
            const spec = thresholdField(name);
            return (
              <Field
                key={name}
                id={`rule-${kind}-${name}`}
                label={`${spec.label} (${spec.unit})`}
                error={errors[`thresholds.${name}`]}
                errorTestId={`rule-error-${kind}-${name}`}
              >
                <Input
                  name={`threshold.${name}`}
                  type="number"
                  required
                  min={spec.min}
                  max={spec.max}
                  step={spec.step}
                  defaultValue={String(thresholds[name])}
                  onSurface
                  className="w-full"
                />
              </Field>
            );
          })}
        </div>
      ) : null}
      <div className="flex flex-wrap items-end gap-3">
        <Field
          id={`rule-${kind}-reason`}
          label="Reason (optional, kept in the audit log)"
          error={errors.reason}
          className="w-full sm:w-auto sm:min-w-56 sm:flex-1"
        >
          <Input name="reason" maxLength={500} onSurface className="w-full" />
        </Field>
        <Button
          ref={saveButton}
          type="submit"
          variant="primary"
          size="md"
          pending={pending}
          pendingLabel="Saving…"
          className="whitespace-nowrap"
        >
          Save rule
        </Button>
      </div>
      <FormError result={result}>
        {result?.ok === false && result.code === 'INVALID_INPUT'
          ? Object.keys(errors).some((key) => key.startsWith('thresholds.') || key === 'reason')
            ? 'Check the fields marked above.'
            : result.message
          : null}
      </FormError>
    </form>
  );
}
