import Link from 'next/link';
import { formatMicros } from '@/lib/console/format';
import type { SpendBudgetView } from '@/lib/queries/spend-budgets';

/** A budget is near its limit from this share used (the default last warning before 100 %). */
const NEAR = 0.8;

/**
 * The Overview's line on the fleet's spend budgets: those at 80 % of their limit or more this period, fullest first,
 * each with what it used and when its period turns; nothing at all when the fleet has no budget.
 */
export function BudgetsNearLimit({ budgets }: { budgets: SpendBudgetView[] }) {
  if (budgets.length === 0) return null;
  const usedShare = (budget: SpendBudgetView) => (budget.spentMicros + budget.reservedMicros) / budget.limitMicros;
  const near = budgets.filter((budget) => usedShare(budget) >= NEAR).sort((a, b) => usedShare(b) - usedShare(a));
  return (
    <p className="mb-5 rounded-lg border border-line bg-surface p-3 text-[13px]" data-testid="budgets-near-limit">
      <Link href="/settings/budgets" className="mr-2 text-[12px] font-medium text-accent hover:underline">
        Spend budgets
      </Link>
      {near.length === 0 ? (
        <span className="text-muted">none at {NEAR * 100} % of its limit this period.</span>
      ) : (
        near.map((budget, index) => (
          <span key={budget.id} className={usedShare(budget) >= 1 ? 'text-danger' : 'text-warn'}>
            {index > 0 ? ' · ' : ''}
            <span className="font-medium">{budget.name}</span> {Math.round(usedShare(budget) * 100)} % of{' '}
            {formatMicros(budget.limitMicros)} a {budget.period}
          </span>
        ))
      )}
    </p>
  );
}
