import { formatMicros } from '@/lib/console/format';
import type { SpendBudget } from '@holdfast/engine/core';
import type { BudgetFormValues } from './actions';

/** What a budget covers, as people read it. */
export function scopeWords(budget: Pick<SpendBudget, 'scope' | 'scopeValue'>): string {
  return budget.scope === 'fleet' ? 'the whole fleet' : `${budget.scope} ${budget.scopeValue}`;
}

/** "$25.00 a day". */
export const limitWords = (budget: Pick<SpendBudget, 'limitMicros' | 'period'>) =>
  `${formatMicros(budget.limitMicros)} a ${budget.period}`;

/** A stored budget as the form shows it for a change. */
export function formValuesOf(budget: SpendBudget): BudgetFormValues {
  return {
    name: budget.name,
    scope: budget.scope,
    scopeValue: budget.scopeValue,
    period: budget.period,
    limitUsd: String(budget.limitMicros / 1_000_000),
    warnPercents: budget.warnPercents.join(', '),
    onExhausted: budget.onExhausted,
    firstAttemptPercent: budget.firstAttemptPercent === null ? '' : String(budget.firstAttemptPercent),
    reason: '',
  };
}
