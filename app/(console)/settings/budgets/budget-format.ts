import { formatMicros } from '@/lib/console/format';
import type { SpendBudget } from '@holdfast/engine/core';
import { periodWords } from '@holdfast/protocol/inputs/spend-budget-input';
import type { BudgetFormValues } from './actions';

/** What a budget covers, as people read it. */
export function scopeWords(budget: Pick<SpendBudget, 'scope' | 'scopeValue'>): string {
  return budget.scope === 'fleet' ? 'the whole fleet' : `${budget.scope} ${budget.scopeValue}`;
}

/** "$25.00 a UTC day", "$5.00 the last hour (rolling)", "$100.00 every 7 days". */
export const limitWords = (budget: Pick<SpendBudget, 'limitMicros' | 'period' | 'resetEveryHours'>) =>
  `${formatMicros(budget.limitMicros)} ${periodWords(budget)}`;

/** A stored budget as the form shows it for a change. */
export function formValuesOf(budget: SpendBudget): BudgetFormValues {
  return {
    name: budget.name,
    scope: budget.scope,
    scopeValue: budget.scopeValue,
    period: budget.period,
    resetEveryHours: budget.resetEveryHours === null ? '' : String(budget.resetEveryHours),
    resetFrom: budget.resetFrom === null ? '' : budget.resetFrom.toISOString().slice(0, 16).replace('T', ' '),
    limitUsd: String(budget.limitMicros / 1_000_000),
    warnPercents: budget.warnPercents.join(', '),
    onExhausted: budget.onExhausted,
    firstAttemptPercent: budget.firstAttemptPercent === null ? '' : String(budget.firstAttemptPercent),
    reason: '',
  };
}
