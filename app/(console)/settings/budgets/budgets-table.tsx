import Link from 'next/link';
import { EditAndDeleteCell } from '@/components/console/edit-and-delete';
import { stacked } from '@/components/ui/stacked-rows';
import { ActionsHeaderCell, Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { formatCount, formatMicros } from '@/lib/console/format';
import type { SpendBudgetView } from '@/lib/queries/spend-budgets';
import { DeleteBudget } from './delete-budget';
import { limitWords, scopeWords } from './budget-format';
import { RollingRunsOut } from './rolling-runs-out';

/** Each budget with its period under way: how much of it is used, by retries, refused, and when it runs out. */
export function BudgetsTable({
  budgets,
  manage,
  editing,
}: {
  budgets: SpendBudgetView[];
  manage: boolean;
  editing?: string;
}) {
  return (
    <Table data-testid="budgets-table" className={stacked.table}>
      <caption className="sr-only">Spend budgets and their periods under way</caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell>Budget</HeaderCell>
          <HeaderCell>Limit</HeaderCell>
          <HeaderCell>Used this period</HeaderCell>
          <HeaderCell numeric>Retries</HeaderCell>
          <HeaderCell numeric>Refused</HeaderCell>
          <HeaderCell>Runs out</HeaderCell>
          {manage ? <ActionsHeaderCell /> : null}
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {budgets.map((budget) => {
          const used = budget.spentMicros + budget.reservedMicros;
          const percent = Math.min(100, Math.round((used / budget.limitMicros) * 100));
          return (
            <tr
              key={budget.id}
              data-testid={`budget-${budget.name}`}
              aria-current={editing === budget.name ? 'true' : undefined}
              className={`align-top ${editing === budget.name ? 'bg-accent-soft' : ''} ${stacked.row}`}
            >
              <Cell className={`min-w-40 text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Budget">
                {/* One block: a phone's stacked cell lays out its children in a row. */}
                <div className="min-w-0">
                  <Link href={`/settings/budgets/${budget.id}`} className="font-medium text-accent hover:underline">
                    <VisibleText text={budget.name} />
                  </Link>
                  <span className="block text-muted">
                    {scopeWords(budget)}; {budget.onExhausted === 'stop' ? 'stops' : 'waits'} when spent
                  </span>
                  {budget.keptIn ? (
                    <span className="block text-muted">From the budgets file {budget.keptIn}</span>
                  ) : null}
                </div>
              </Cell>
              <Cell className={`whitespace-nowrap text-[12px] ${stacked.cell}`} data-label="Limit">
                {limitWords(budget)}
              </Cell>
              <Cell className={`min-w-48 text-[12px] ${stacked.cell}`} data-label="Used" data-testid="budget-used">
                <div className="min-w-0 flex-1">
                  <div>
                    {formatMicros(budget.spentMicros)} spent
                    {budget.reservedMicros > 0 ? `, ${formatMicros(budget.reservedMicros)} reserved` : ''} ({percent} %)
                  </div>
                  <div
                    className="mt-1 h-1.5 w-full max-w-48 rounded bg-line"
                    role="img"
                    aria-label={`${percent} % of the limit used`}
                  >
                    <div
                      className={`h-1.5 rounded ${percent >= 100 ? 'bg-danger' : percent >= 80 ? 'bg-warn' : 'bg-accent'}`}
                      style={{ width: `${percent}%` }}
                    />
                  </div>
                  {budget.seenMicros > 0 ? (
                    <div className="text-muted">
                      {formatMicros(budget.seenMicros)} of it seen only (reported or from spans)
                    </div>
                  ) : null}
                </div>
              </Cell>
              <Cell numeric className={`text-[12px] ${stacked.cell}`} data-label="Retries" data-testid="budget-retries">
                {formatMicros(budget.retrySpentMicros)}
              </Cell>
              <Cell
                numeric
                className={`text-[12px] ${stacked.cell}`}
                data-label="Refused"
                data-testid="budget-refusals"
              >
                {formatCount(budget.refusals)}
              </Cell>
              <Cell className={`text-[12px] ${stacked.cell}`} data-label="Runs out" data-testid="budget-forecast">
                {budget.period === 'rolling_hour' ? (
                  <RollingRunsOut used={used} limit={budget.limitMicros} nextTurn={budget.periodEnd} />
                ) : budget.exhaustedAt ? (
                  used >= budget.limitMicros ? (
                    <span className="text-danger">
                      spent; turns <Moment value={budget.periodEnd} />
                    </span>
                  ) : (
                    <span>
                      at this period&apos;s rate, <Moment value={budget.exhaustedAt} />
                    </span>
                  )
                ) : (
                  <span className="text-muted">
                    not before the period turns (<Moment value={budget.periodEnd} />)
                  </span>
                )}
              </Cell>
              {manage && budget.keptIn ? (
                <Cell className={`text-[12px] text-muted ${stacked.controls}`} data-testid="budget-kept-in">
                  Kept in {budget.keptIn}: change it there
                </Cell>
              ) : manage ? (
                <EditAndDeleteCell
                  editHref={`/settings/budgets?${new URLSearchParams({ edit: budget.name })}#budget-form`}
                  editLabel={`Edit the budget ${budget.name}`}
                >
                  <DeleteBudget name={budget.name} />
                </EditAndDeleteCell>
              ) : null}
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
