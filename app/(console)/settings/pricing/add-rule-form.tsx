'use client';

import { useActionState, useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { refocus } from '@/components/console/focus-after-action';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { errorClasses } from '@holdfast/protocol/enums';
import { type AddRuleFormValues, addRuleAction, type RuleEditResult } from './actions';

const NEW_RULE: AddRuleFormValues = {
  when: 'status',
  from: '',
  to: '',
  words: '',
  errorClass: 'transient',
  before: 'end',
};

/** The rule as typed, for the toast: "HTTP 418 → permanent"; many words are cut short. */
function ruleAsTyped(values: AddRuleFormValues): string {
  const to = values.to.trim() === '' ? values.from : values.to;
  const condition =
    values.when === 'words'
      ? `error.type contains ${values.words.trim()}`
      : `HTTP ${values.from.trim()}${to.trim() === values.from.trim() ? '' : `–${to.trim()}`}`;
  const shown = condition.length > 80 ? `${condition.slice(0, 79)}…` : condition;
  return `${shown} → ${values.errorClass}`;
}

/**
 * Adds one rule (a status range, or words `error.type` contains) at the end or before rule N. The
 * table it edits (`basedOn`) and the section's reason go with it.
 */
export function AddRuleForm({
  count,
  basedOn,
  reason,
  onAnswer,
}: {
  count: number;
  basedOn: string;
  reason: string;
  /** The section shows the toast (saying `added`), a conflict and a missing reason. */
  onAnswer: (result: RuleEditResult, added: string) => void;
}) {
  const [state, submit, pending] = useActionState(addRuleAction, undefined);
  const refused = state && !state.result.ok ? state : undefined;
  const initial = refused?.values ?? NEW_RULE;
  const errors = refused?.result.ok === false ? (refused.result.fieldErrors ?? {}) : {};
  const [when, setWhen] = useState(initial.when);
  const addButton = useRef<HTMLButtonElement>(null);
  const answer = useRef(onAnswer);
  answer.current = onAnswer;
  useEffect(() => {
    if (!state) return;
    answer.current(state.result, `Rule added: ${ruleAsTyped(state.values)}.`);
    // The section moves focus to the reason or to Reload when one of them is the way on.
    const elsewhere = !state.result.ok && (state.result.code === 'STATE_CONFLICT' || state.result.fieldErrors?.reason);
    if (!elsewhere) refocus(addButton.current);
  }, [state]);
  const ownErrors =
    refused?.result.ok === false && refused.result.code !== 'STATE_CONFLICT' ? refused.result : undefined;

  return (
    <form
      action={submit}
      className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
      data-testid="add-rule-form"
      aria-labelledby="add-rule-title"
    >
      <h3 id="add-rule-title" className="text-[13px] font-medium">
        Add a rule
      </h3>
      <input type="hidden" name="basedOn" value={basedOn} />
      <input type="hidden" name="reason" value={reason} />
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field id="add-rule-when" label="Matches">
          <Select
            name="when"
            value={when}
            onChange={(event) => setWhen(event.target.value)}
            onSurface
            className="w-full"
          >
            <option value="status">an HTTP status range</option>
            <option value="words">words in error.type</option>
          </Select>
        </Field>
        {when === 'words' ? (
          <Field
            id="add-rule-words"
            label="Words"
            hint="Comma-separated; any one matches, ignoring case"
            error={errors.words}
            errorTestId="add-rule-error-words"
          >
            <Input
              name="words"
              required
              defaultValue={initial.words}
              placeholder="e.g. quota_exceeded, slow down"
              spellCheck={false}
              onSurface
              className="w-full"
            />
          </Field>
        ) : (
          <div className="grid grid-cols-2 gap-3">
            <Field id="add-rule-from" label="From status" error={errors.from} errorTestId="add-rule-error-from">
              <Input
                name="from"
                type="number"
                required
                step={1}
                defaultValue={initial.from}
                onSurface
                className="w-full"
              />
            </Field>
            <Field
              id="add-rule-to"
              label="To status"
              hint="Blank: just the one"
              error={errors.to}
              errorTestId="add-rule-error-to"
            >
              <Input name="to" type="number" step={1} defaultValue={initial.to} onSurface className="w-full" />
            </Field>
          </div>
        )}
        <Field id="add-rule-class" label="Class" error={errors.errorClass} errorTestId="add-rule-error-errorClass">
          <Select name="errorClass" defaultValue={initial.errorClass} onSurface className="w-full">
            {errorClasses.map((errorClass) => (
              <option key={errorClass} value={errorClass}>
                {errorClass}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="add-rule-before" label="Position">
          <Select name="before" defaultValue={initial.before} onSurface className="w-full">
            <option value="end">at the end</option>
            {Array.from({ length: count }, (_, index) => index + 1).map((rule) => (
              <option key={rule} value={rule}>
                before rule {rule}
              </option>
            ))}
          </Select>
        </Field>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button ref={addButton} type="submit" variant="primary" size="md" pending={pending} pendingLabel="Adding…">
          Add rule
        </Button>
        <span className="text-[12px] text-muted">Saved with the reason typed above the table.</span>
      </div>
      <FormError result={ownErrors && !ownErrors.fieldErrors?.reason ? ownErrors : undefined}>
        {ownErrors?.code === 'INVALID_INPUT' ? 'Check the fields marked above.' : null}
      </FormError>
    </form>
  );
}
