import type { Metadata } from 'next';
import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { decide } from '@holdfast/engine/core';
import { getSpendBudgets } from '@/lib/queries/spend-budgets';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { BudgetForm } from './budget-form';
import { formValuesOf } from './budget-format';
import { BudgetsTable } from './budgets-table';

export const metadata: Metadata = { title: 'Spend budgets' };
export const dynamic = 'force-dynamic';

/** `?edit=NAME` opens a budget's change in the form. */
type BudgetsParams = Promise<{ edit?: string | string[] }>;

export default async function BudgetsPage(props: { searchParams: BudgetsParams }) {
  const [person, { edit }] = await Promise.all([requirePerson(), props.searchParams]);
  const manage = decide(person, 'spend_budget.manage');
  const budgets = await getSpendBudgets(getDb(), new Date());
  // A budget a budgets file keeps changes only with the file.
  const editing = manage.allowed ? budgets.find((budget) => budget.name === edit && !budget.keptIn) : undefined;

  return (
    <>
      <PageHeader
        title="Spend budgets"
        description="What the fleet may spend per UTC hour, day or month, the last hour (rolling) or a custom period: for the whole fleet, an agent, a task owner, a queue, a step, a downstream or a model. A begin reserves its estimate under every budget covering it; one without room makes the step wait for the period to turn, or stops it."
      />
      {manage.allowed ? (
        <BudgetForm key={editing?.name ?? 'new'} budget={editing && formValuesOf(editing)} />
      ) : (
        <p className="mb-4 text-[13px] text-muted" data-testid="budgets-read-only">
          Read only: {manage.reason}. Ask an admin to add, change or delete a budget.
        </p>
      )}
      <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="budgets-title" tabIndex={-1} className="text-[14px] font-medium">
          Budgets
        </h2>
        <Link href="/audit?targetType=spend_budget" className="text-[12px] text-accent hover:underline">
          Changes in the audit log
        </Link>
      </div>
      {budgets.length === 0 ? (
        <EmptyState title="No spend budgets yet" testId="budgets-empty">
          Each task has its own spend ceiling; a budget bounds many tasks together.
          {manage.allowed ? ' Add one above.' : ' An admin can add one.'}
        </EmptyState>
      ) : (
        <BudgetsTable budgets={budgets} manage={manage.allowed} editing={editing?.name} />
      )}
      <p className="mt-3 max-w-prose text-[12px] text-muted">
        Used is what finished attempts cost in the period, plus what running ones reserved; attempts reported after the
        fact or read from spans count too (they cannot be refused). Runs out: at the rate spent so far this period.
      </p>
    </>
  );
}
