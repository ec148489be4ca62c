'use client';

import { fieldsOf, SettingsForm } from '@/components/console/settings-form';
import { type Saved, type SaveOutcome, useSavedForm } from '@/components/console/use-saved-form';
import { Field } from '@/components/ui/field';
import { InputField } from '@/components/ui/input-field';
import { Select } from '@/components/ui/select';
import { useState } from 'react';
import { budgetScopes } from '@holdfast/protocol/inputs/spend-budget-input';
import { type BudgetFormValues, type SaveBudgetState, saveBudgetAction } from './actions';

const NEW_BUDGET: BudgetFormValues = {
  name: '',
  scope: 'agent',
  scopeValue: '',
  period: 'day',
  resetEveryHours: '',
  resetFrom: '',
  limitUsd: '',
  warnPercents: '50, 80, 100',
  onExhausted: 'wait',
  firstAttemptPercent: '',
  reason: '',
};

const FIELDS = {
  name: { label: 'Name', hint: 'Names the budget in answers, alerts and the audit log' },
  scopeValue: {
    label: 'Covers',
    hint: 'The agent, owner (team:NAME), queue, step, downstream or model (gpt-4o-mini); blank for the fleet',
  },
  resetEveryHours: { label: 'Each period lasts (hours)', hint: 'e.g. 6, or 168 for a week' },
  resetFrom: { label: 'First period began (UTC)', hint: 'On the hour, e.g. 2026-12-01 00:00' },
  limitUsd: { label: 'Limit ($ a period)' },
  warnPercents: { label: 'Warn at (%)', hint: 'Shares of the limit that alert, e.g. 50, 80, 100' },
  firstAttemptPercent: { label: 'Kept for first attempts (%)', hint: 'Retries may use the rest; blank: no share kept' },
} as const;

const CHOICES = {
  scope: { label: 'Scope', options: budgetScopes.map((scope) => [scope, scope] as const) },
  period: {
    label: 'Period',
    options: [
      ['hour', 'a UTC hour'],
      ['day', 'a UTC day'],
      ['month', 'a UTC month'],
      ['rolling_hour', 'the last hour (rolling)'],
      ['custom', 'custom (a length and a start)'],
    ] as const,
  },
  onExhausted: {
    label: 'When spent',
    options: [
      ['wait', 'wait for the period to turn'],
      ['stop', 'stop the task (do not retry)'],
    ] as const,
  },
} as const;

function outcomeOf({ result, values }: Saved<SaveBudgetState>): SaveOutcome {
  const name = values.name.trim();
  if (!result.data.changed) return { message: `No change: ${name} already is so.`, tone: 'info' };
  return { message: `Budget ${result.data.created ? 'added' : 'changed'}: ${name}.`, tone: 'success' };
}

/** Adds a budget, or (with `budget`) changes one; every change needs a reason. */
export function BudgetForm({ budget }: { budget?: BudgetFormValues }) {
  const form = useSavedForm(saveBudgetAction, outcomeOf);
  const initial = form.refused ?? budget ?? NEW_BUDGET;
  const named = fieldsOf('budget', FIELDS, initial, form.errors);
  // A custom period's length and start are asked only when it is chosen.
  const [period, setPeriod] = useState(initial.period);
  const choice = (name: keyof typeof CHOICES) => (
    <Field
      id={`budget-${name}`}
      label={CHOICES[name].label}
      error={form.errors[name]}
      errorTestId={`budget-error-${name}`}
    >
      <Select
        name={name}
        defaultValue={initial[name]}
        onSurface
        className="w-full"
        onChange={name === 'period' ? (event) => setPeriod(event.currentTarget.value) : undefined}
      >
        {CHOICES[name].options.map(([value, words]) => (
          <option key={value} value={value}>
            {words}
          </option>
        ))}
      </Select>
    </Field>
  );
  return (
    <SettingsForm
      id="budget-form"
      className="mb-6"
      title={budget ? `Change the budget ${budget.name}` : 'Add a budget, or change one by its name'}
      form={form}
      reason={initial.reason}
      save={{
        idPrefix: 'budget',
        placeholder: 'e.g. the research fleet may spend $50 a day',
        label: budget ? 'Save changes' : 'Add budget',
        cancelHref: budget ? '/settings/budgets' : undefined,
      }}
    >
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {budget ? <input type="hidden" name="name" value={budget.name} /> : <InputField {...named('name')} required />}
        {choice('scope')}
        <InputField {...named('scopeValue')} placeholder="e.g. research" />
        {choice('period')}
        {period === 'custom' ? (
          <>
            <InputField {...named('resetEveryHours')} type="number" step="1" min="1" required />
            <InputField {...named('resetFrom')} placeholder="2026-12-01 00:00" required />
          </>
        ) : null}
        <InputField {...named('limitUsd')} type="number" step="any" required />
        {choice('onExhausted')}
        <InputField {...named('warnPercents')} />
        <InputField {...named('firstAttemptPercent')} type="number" step="1" />
      </div>
    </SettingsForm>
  );
}
