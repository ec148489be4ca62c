import Link from 'next/link';
import { stacked } from '@/components/ui/stacked-rows';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { VisibleText } from '@/components/ui/visible-text';
import { formatCount, formatMicros, formatPercent } from '@/lib/console/format';
import type { BudgetSpender } from '@/lib/queries/budget-burn';

/** The steps that spent most under the budget this period, each with its share and its retries' part. */
export function BudgetSpenders({ spenders, spentMicros }: { spenders: BudgetSpender[]; spentMicros: number }) {
  return (
    <section className="mt-4" aria-labelledby="spenders-title">
      <h2 id="spenders-title" className="mb-2 text-[14px] font-medium">
        Top spenders this period
      </h2>
      {spenders.length === 0 ? (
        <p className="text-[13px] text-muted" data-testid="budget-spenders-empty">
          No step has spent under this budget this period.
        </p>
      ) : (
        <Table data-testid="budget-spenders" className={stacked.table}>
          <caption className="sr-only">The steps that spent most under the budget this period</caption>
          <thead className={stacked.head}>
            <tr>
              <HeaderCell>Step</HeaderCell>
              <HeaderCell numeric>Spent</HeaderCell>
              <HeaderCell numeric>Share</HeaderCell>
              <HeaderCell numeric>Of it retries</HeaderCell>
              <HeaderCell numeric>Attempts</HeaderCell>
            </tr>
          </thead>
          <tbody className={stacked.body}>
            {spenders.map((spender) => (
              <tr key={`${spender.agent}/${spender.step}`} className={stacked.row} data-testid="budget-spender">
                <Cell className={`text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Step">
                  <Link
                    href={`/steps/${encodeURIComponent(spender.agent)}/${encodeURIComponent(spender.step)}`}
                    className="text-accent hover:underline"
                  >
                    <VisibleText text={`${spender.agent}/${spender.step}`} />
                  </Link>
                </Cell>
                <Cell numeric className={`text-[12px] ${stacked.cell}`} data-label="Spent">
                  {formatMicros(spender.spentMicros)}
                </Cell>
                <Cell numeric className={`text-[12px] ${stacked.cell}`} data-label="Share">
                  {spentMicros > 0 ? formatPercent(spender.spentMicros / spentMicros) : '—'}
                </Cell>
                <Cell numeric className={`text-[12px] ${stacked.cell}`} data-label="Of it retries">
                  {formatMicros(spender.retrySpentMicros)}
                </Cell>
                <Cell numeric className={`text-[12px] ${stacked.cell}`} data-label="Attempts">
                  {formatCount(spender.attempts)}
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}
