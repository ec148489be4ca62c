import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import type { Actor } from '../kernel/context';
import { type FieldErrors, InvalidInputError } from '@holdfast/protocol/errors';
import { MAX_BUDGETS, saveSpendBudgetInput } from '@holdfast/protocol/inputs/spend-budget-input';
import {
  budgetSettingsOf,
  fleetHasBudgets,
  readSpendBudgets,
  type BudgetChange,
  writeBudgetChange,
} from './spend-budgets';

/** Who applies a budgets file, in the audit log. */
const BUDGETS_FILE: Actor = { type: 'system', id: 'budgets-file' };

/** A budgets file's budget, as the console's form takes it (limit in dollars), without a reason. */
export type FileBudget = Omit<BudgetChange, 'reason' | 'keptIn' | 'now'> & { next: NonNullable<BudgetChange['next']> };

/**
 * Reads a budgets file (HOLDFAST_SPEND_BUDGETS_FILE): JSON of the form `{"budgets": [{"name", "scope", "scopeValue",
 * "period", "limitUsd", "warnPercents", "onExhausted", "firstAttemptPercent"}]}`, each budget checked as the console
 * checks one, at most MAX_BUDGETS, names unique. Every problem is named with its place (`budgets.2.limitUsd`), all at
 * once; nothing is applied from a file with one.
 */
export function parseBudgetsFile(text: string): FileBudget[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`Invalid input: not JSON (${(error as Error).message})`, {
      '(file)': ['must be JSON: {"budgets": [...]}'],
    });
  }
  const entries = (json as { budgets?: unknown })?.budgets;
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !Array.isArray(entries)) {
    throw new InvalidInputError('Invalid input: no "budgets" list', { budgets: ['must be a list of budgets'] });
  }
  const errors: FieldErrors = {};
  const extra = Object.keys(json).filter((key) => key !== 'budgets');
  if (extra.length > 0) errors['(file)'] = [`unknown field ${extra.map((key) => `"${key}"`).join(', ')}`];
  if (entries.length > MAX_BUDGETS) errors.budgets = [`at most ${MAX_BUDGETS} budgets`];
  const budgets: FileBudget[] = [];
  const seen = new Map<string, number>();
  entries.slice(0, MAX_BUDGETS).forEach((entry, index) => {
    const parsed = saveSpendBudgetInput.safeParse(
      typeof entry === 'object' && entry !== null ? { reason: 'budgets file', ...entry } : entry,
    );
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        (errors[['budgets', index, ...issue.path].join('.')] ??= []).push(issue.message);
      }
      return;
    }
    const { name, reason: _reason, ...settings } = parsed.data;
    const first = seen.get(name);
    if (first !== undefined) {
      (errors[`budgets.${index}.name`] ??= []).push(`"${name}" is budget ${first} already`);
      return;
    }
    seen.set(name, index);
    budgets.push({ name, next: budgetSettingsOf(settings) });
  });
  if (Object.keys(errors).length > 0) {
    const summary = Object.entries(errors)
      .map(([field, messages]) => `${field}: ${messages.join(', ')}`)
      .join('; ');
    throw new InvalidInputError(`Invalid input: ${summary}`, errors);
  }
  return budgets;
}

export interface BudgetsFileOutcome {
  created: number;
  changed: number;
  deleted: number;
  unchanged: number;
}

/**
 * Makes the fleet's budgets what the file says, in one transaction (two instances starting at once apply it one
 * after the other): each of its budgets created or changed and kept in the file (`fileName`), a budget the console
 * kept under the same name taken over; a budget a file kept that this file no longer names deleted. Every change is
 * audited as the budgets file, with the file's name as its reason; a budget already as the file says writes nothing.
 */
export async function applyBudgetsFile(
  db: Database,
  fileName: string,
  budgets: FileBudget[],
  now = new Date(),
): Promise<BudgetsFileOutcome> {
  const outcome: BudgetsFileOutcome = { created: 0, changed: 0, deleted: 0, unchanged: 0 };
  const reason = `from the budgets file ${fileName}`;
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('holdfast:spend-budgets-file'))`);
    for (const budget of budgets) {
      const result = await writeBudgetChange(tx, BUDGETS_FILE, { ...budget, reason, keptIn: fileName, now });
      if (!result.changed) outcome.unchanged += 1;
      else if (result.created) outcome.created += 1;
      else outcome.changed += 1;
    }
    const named = new Set(budgets.map((budget) => budget.name));
    for (const stored of await readSpendBudgets(tx)) {
      if (stored.keptIn === null || named.has(stored.name)) continue;
      await writeBudgetChange(tx, BUDGETS_FILE, { name: stored.name, reason, next: null, keptIn: fileName, now });
      outcome.deleted += 1;
    }
  });
  fleetHasBudgets.forget(db);
  return outcome;
}
