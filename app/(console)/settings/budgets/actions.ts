'use server';

import { deleteSpendBudget, saveSpendBudget } from '@holdfast/engine/core';
import { type ActionResult, field, runAction } from '@/lib/server/action';
import type { SaveSpendBudgetInput } from '@holdfast/protocol/inputs/spend-budget-input';

const SHOWN_ON = ['/settings/budgets'];

export interface BudgetFormValues {
  name: string;
  scope: string;
  scopeValue: string;
  period: string;
  resetEveryHours: string;
  resetFrom: string;
  limitUsd: string;
  warnPercents: string;
  onExhausted: string;
  firstAttemptPercent: string;
  reason: string;
}

export interface SaveBudgetState {
  result: ActionResult<{ changed: boolean; created: boolean }>;
  values: BudgetFormValues;
}

const FIELDS = [
  'name',
  'scope',
  'scopeValue',
  'period',
  'resetEveryHours',
  'resetFrom',
  'limitUsd',
  'warnPercents',
  'onExhausted',
  'firstAttemptPercent',
  'reason',
] as const;

/** A typed number for the library to judge: blank is absent (required ones are named), not 0. */
const typedNumber = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** A typed UTC moment, "2026-12-01 00:00" or ISO 8601; one without an offset is UTC, as the field says. */
function typedMoment(text: string): string | null {
  const trimmed = text.trim().replace(' ', 'T');
  if (trimmed === '') return null;
  const withOffset = /(Z|[+-]\d\d:?\d\d)$/i.test(trimmed) ? trimmed : `${trimmed}Z`;
  const at = Date.parse(withOffset);
  // What does not read as a moment goes on as typed, for the library to refuse beside the field.
  return Number.isNaN(at) ? text : new Date(at).toISOString();
}

/** Adds or changes a budget by its name; admins only, the library checks and validates. */
export async function saveBudgetAction(
  _previous: SaveBudgetState | undefined,
  formData: FormData,
): Promise<SaveBudgetState> {
  const values = Object.fromEntries(FIELDS.map((name) => [name, field(formData, name)])) as unknown as BudgetFormValues;
  const input = {
    ...values,
    limitUsd: typedNumber(values.limitUsd),
    warnPercents: values.warnPercents
      .split(/[\s,;%]+/)
      .filter(Boolean)
      .map(Number),
    firstAttemptPercent: typedNumber(values.firstAttemptPercent) ?? null,
    // Kept in the form whatever the period, sent only for a custom one.
    resetEveryHours: values.period === 'custom' ? (typedNumber(values.resetEveryHours) ?? null) : null,
    resetFrom: values.period === 'custom' ? typedMoment(values.resetFrom) : null,
  } as unknown as SaveSpendBudgetInput;
  const result = await runAction((ctx) => saveSpendBudget(ctx, input), SHOWN_ON);
  return { result, values };
}

/** Deletes a budget, with a reason: its work is no longer limited by it, and its figures go. */
export async function deleteBudgetAction(formData: FormData): Promise<ActionResult<{ changed: boolean }>> {
  const [name, reason] = ['name', 'reason'].map((key) => field(formData, key)) as [string, string];
  return runAction((ctx) => deleteSpendBudget(ctx, { name, reason }), SHOWN_ON);
}
