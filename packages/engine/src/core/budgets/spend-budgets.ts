import { type SQLWrapper, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor } from '../../db/client';
import { writeAudit } from '../audit/audit-log';
import { authorize } from '../identity/authorization';
import { type Actor, actorLabel, type CoreContext, nowOf } from '../kernel/context';
import { cachedPerDatabase } from '../pricing/rules-cache';
import { periodStartSql, windowStartOf } from './budget-periods';
import { attemptsCoveredSql } from './budget-coverage';
import { InvalidInputError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import {
  type BudgetExhaustion,
  type BudgetPeriod,
  type BudgetScope,
  deleteSpendBudgetInput,
  type DeleteSpendBudgetInput,
  MAX_BUDGETS,
  saveSpendBudgetInput,
  type SaveSpendBudgetInput,
} from '@holdfast/protocol/inputs/spend-budget-input';

/** A budget as the begins and the console read it. */
export interface SpendBudget {
  id: number;
  name: string;
  scope: BudgetScope;
  scopeValue: string;
  period: BudgetPeriod;
  /** A custom period's length in hours and its first start; null for the other periods. */
  resetEveryHours: number | null;
  resetFrom: Date | null;
  limitMicros: number;
  warnPercents: number[];
  onExhausted: BudgetExhaustion;
  firstAttemptPercent: number | null;
  /** The budgets file that keeps it (its file name), or null when the console keeps it. */
  keptIn: string | null;
  updatedBy: string;
  updatedAt: Date;
}

export interface SpendBudgetRow extends Record<string, unknown> {
  id: string | number;
  name: string;
  scope: BudgetScope;
  scope_value: string;
  period: BudgetPeriod;
  reset_every_hours: number | null;
  reset_from: Date | string | null;
  limit_micros: string | number;
  warn_percents: number[];
  on_exhausted: BudgetExhaustion;
  first_attempt_percent: number | null;
  kept_in: string | null;
  updated_by: string;
  updated_at: Date | string;
}

export function spendBudgetOfRow(row: SpendBudgetRow): SpendBudget {
  return {
    id: Number(row.id),
    name: row.name,
    scope: row.scope,
    scopeValue: row.scope_value,
    period: row.period,
    resetEveryHours: row.reset_every_hours,
    resetFrom: row.reset_from === null ? null : new Date(row.reset_from),
    limitMicros: Number(row.limit_micros),
    warnPercents: row.warn_percents,
    onExhausted: row.on_exhausted,
    firstAttemptPercent: row.first_attempt_percent,
    keptIn: row.kept_in,
    updatedBy: row.updated_by,
    updatedAt: new Date(row.updated_at),
  };
}

/** Every budget, by name. */
export async function readSpendBudgets(db: Executor): Promise<SpendBudget[]> {
  const rows = await db.execute<SpendBudgetRow>(sql`select * from spend_budgets order by name`);
  return [...rows].map(spendBudgetOfRow);
}

/**
 * The budgets that may cover a begin, read with its other facts: the fleet's, the agent's, the step's, the
 * downstream's, and every queue's and owner's (the task's are known after the claim). A handful of rows, by index.
 */
export function spendBudgetsMaybeCoveringSql(work: {
  agent: SQLWrapper;
  step: SQLWrapper;
  downstream: SQLWrapper;
  model: SQLWrapper;
}) {
  return sql`select * from spend_budgets
    where scope in ('fleet', 'queue', 'owner') or (scope = 'agent' and scope_value = ${work.agent}::text)
      or (scope = 'step' and scope_value = ${work.step}::text)
      or (scope = 'downstream' and scope_value = ${work.downstream}::text)
      or (scope = 'model' and scope_value = ${work.model}::text)`;
}

/** What an audit record keeps of a budget: all but its name (the record's target) and who changed it when. */
/** Whether the fleet has any spend budget, as reported attempts ask before counting their spend (5 s copy). */
export const fleetHasBudgets = cachedPerDatabase(async (db: Executor) => {
  const [row] = await db.execute<{ any: boolean }>(sql`select exists (select 1 from spend_budgets) as any`);
  return row?.any ?? false;
});

export type AuditedBudget = Omit<SpendBudget, 'id' | 'name' | 'keptIn' | 'updatedBy' | 'updatedAt'>;

/** A budget's settings in one order, so that the same settings compare (and are audited) the same. */
const settingsOf = (budget: AuditedBudget): AuditedBudget => ({
  scope: budget.scope,
  scopeValue: budget.scopeValue,
  period: budget.period,
  resetEveryHours: budget.resetEveryHours,
  resetFrom: budget.resetFrom,
  limitMicros: budget.limitMicros,
  warnPercents: budget.warnPercents,
  onExhausted: budget.onExhausted,
  firstAttemptPercent: budget.firstAttemptPercent,
});

/** A budget's settings as stored, from what the console, the API or a budgets file says (parsed). */
export function budgetSettingsOf(input: Omit<z.output<typeof saveSpendBudgetInput>, 'name' | 'reason'>): AuditedBudget {
  const { limitUsd, resetFrom, ...rest } = input;
  return {
    ...rest,
    resetFrom: resetFrom === null ? null : new Date(resetFrom),
    limitMicros: Math.round(limitUsd * 1_000_000),
  };
}

/**
 * Creates or changes a budget by its name; admins only, with a reason, audited in the same transaction. A change
 * applies to the period under way (its spend so far stays); saving what is already set writes nothing.
 */
export function saveSpendBudget(
  ctx: CoreContext,
  input: SaveSpendBudgetInput,
): Promise<{ changed: boolean; created: boolean }> {
  return changeBudget(ctx, () => {
    const { name, reason, ...settings } = parseInput(saveSpendBudgetInput, input);
    return { name, reason, next: budgetSettingsOf(settings) };
  });
}

/** Deletes a budget and its periods' figures; audited. Deleting one that is gone changes nothing. */
export async function deleteSpendBudget(
  ctx: CoreContext,
  input: DeleteSpendBudgetInput,
): Promise<{ changed: boolean }> {
  const { changed } = await changeBudget(ctx, () => ({ ...parseInput(deleteSpendBudgetInput, input), next: null }));
  return { changed };
}

/** One change of a budget from the console, checked (who, then what) first; the row and its audit in one transaction. */
async function changeBudget(
  ctx: CoreContext,
  read: () => { name: string; reason: string; next: AuditedBudget | null },
): Promise<{ changed: boolean; created: boolean }> {
  const actor = authorize(ctx, 'spend_budget.manage');
  const change = { ...read(), keptIn: null, now: nowOf(ctx) };
  const result = await ctx.db.transaction((tx) => writeBudgetChange(tx, actor, change));
  if (result.changed) fleetHasBudgets.forget(ctx.db);
  return result;
}

/** A budget's change as written: what it becomes (null: deleted), and who keeps it (a budgets file, or the console). */
export interface BudgetChange {
  name: string;
  reason: string;
  next: AuditedBudget | null;
  keptIn: string | null;
  /** When the change is made: a new budget counts its period's spend up to it. */
  now: Date;
}

/**
 * Writes one budget's change and its audit record in the caller's transaction; a change that sets what is stored
 * writes nothing. The console (keptIn null) may not change a budget a file keeps: it is refused, naming the file.
 */
export async function writeBudgetChange(
  tx: Executor,
  actor: Actor,
  change: BudgetChange,
): Promise<{ changed: boolean; created: boolean }> {
  const { name, reason, keptIn } = change;
  const next = change.next && settingsOf(change.next);
  const [stored] = await tx.execute<SpendBudgetRow>(sql`select * from spend_budgets where name = ${name} for update`);
  if (stored?.kept_in && keptIn === null) {
    throw new InvalidInputError(`Invalid input: the budget "${name}" is kept in ${stored.kept_in}`, {
      name: [`kept in ${stored.kept_in}: change it there, and the next start applies it`],
    });
  }
  const before = stored ? settingsOf(spendBudgetOfRow(stored)) : null;
  if (JSON.stringify(before) === JSON.stringify(next) && (stored?.kept_in ?? null) === keptIn) {
    return { changed: false, created: false };
  }
  if (next) {
    if (!stored) await refuseBeyondBound(tx);
    await tx.execute(sql`
      insert into spend_budgets (name, scope, scope_value, period, reset_every_hours, reset_from, limit_micros,
        warn_percents, on_exhausted, first_attempt_percent, kept_in, updated_by)
      values (${name}, ${next.scope}, ${next.scopeValue}, ${next.period}, ${next.resetEveryHours},
        ${next.resetFrom?.toISOString() ?? null}::timestamptz, ${next.limitMicros},
        ${`{${next.warnPercents.join(',')}}`}::smallint[], ${next.onExhausted}, ${next.firstAttemptPercent},
        ${keptIn}, ${actorLabel(actor)})
      on conflict (name) do update set scope = excluded.scope, scope_value = excluded.scope_value,
        period = excluded.period, reset_every_hours = excluded.reset_every_hours, reset_from = excluded.reset_from,
        limit_micros = excluded.limit_micros, warn_percents = excluded.warn_percents,
        on_exhausted = excluded.on_exhausted, first_attempt_percent = excluded.first_attempt_percent,
        kept_in = excluded.kept_in, updated_by = excluded.updated_by, updated_at = now()`);
    if (!stored) await countPeriodSoFar(tx, name, next, change.now);
  } else {
    await tx.execute(sql`delete from spend_budgets where name = ${name}`);
  }
  const action = next ? 'spend_budget.save' : 'spend_budget.delete';
  await writeAudit(tx, actor, { action, targetType: 'spend_budget', targetId: name, reason, before, after: next });
  return { changed: true, created: !stored };
}

/**
 * A budget made during a period starts from what the work it covers spent in it so far, read from the attempt log:
 * all of it seen, none enforced (the budget refused nothing before it existed), its retries' part as retry spend.
 * A rolling hour's spend so far goes to the buckets it began in, so that it leaves the window on time. Attempts
 * running now count nothing here: they reserved under no budget of this name. A changed budget keeps its count:
 * attempts running under it hold reservations on its rows, which a recount would orphan.
 */
async function countPeriodSoFar(tx: Executor, name: string, budget: AuditedBudget, now: Date): Promise<void> {
  const from = windowStartOf(budget, now);
  const [row] = await tx.execute<{ id: string }>(sql`select id from spend_budgets where name = ${name}`);
  const id = Number(row!.id);
  await tx.execute(sql`
    insert into spend_budget_usage (budget_id, period_start, stripe, spent_micros, seen_micros, retry_spent_micros)
    select ${id}, period_start, 0, spent, spent, retry_spent
    from (select ${periodStartSql(budget, sql`a.started_at`)} as period_start,
            coalesce(sum(a.cost_micros), 0)::bigint as spent, coalesce(sum(a.retry_cost_micros), 0)::bigint as retry_spent
          from ${attemptsCoveredSql(budget, from, now)}
          group by 1) counted
    where spent > 0`);
}

async function refuseBeyondBound(tx: Executor): Promise<void> {
  const [row] = await tx.execute<{ budgets: number }>(sql`select count(*)::int as budgets from spend_budgets`);
  if ((row?.budgets ?? 0) >= MAX_BUDGETS) {
    throw new InvalidInputError(`Invalid input: the fleet already has ${MAX_BUDGETS} budgets`, {
      name: [`the fleet already has ${MAX_BUDGETS} budgets: delete one first`],
    });
  }
}
