import Link from 'next/link';
import { RetryPoolBadge } from '@/components/retry-pools/retry-pool-badge';
import { AnomalyFlag, type AnomalyFacts } from '@/components/ui/anomaly-flag';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import type { StepPoolCoverage } from '@/lib/queries/retry-pools';
import type { StepCostSource, StepSource } from '@/lib/queries/step-sources';
import type { StepOwnerView } from '@/lib/queries/step-owners';
import { OwnerName } from '@/components/console/owner-name';
import type { ComparedStepStats } from '@/lib/queries/step-figures';
import type { RetrySpendByCause } from '@/lib/queries/retry-spend-by-cause';
import { stepsViewHref } from '@/lib/console/filter-forms/steps';
import type { SortColumn, StepsView } from '@/lib/filters/steps';
import { phoneClass, sortLabel, stepColumns } from '@/lib/console/step-columns';
import { stepDetailHref } from '@/lib/console/step-href';
import { VisibleText } from '@/components/ui/visible-text';
import { CostSources, SourceBadges } from './source-badges';
import { FigureChange } from './figure-change';
import { isNewStep } from '@/lib/console/step-changes';
import { RetryCauses } from './retry-causes';

export function StepsTable({
  steps,
  retryCauses,
  view,
  anomalies,
  pools,
  sources,
  costSources,
  owners,
}: {
  steps: ComparedStepStats[];
  /** The shown steps' retry spend by the failure before each retry. */
  retryCauses?: RetrySpendByCause;
  view: StepsView;
  anomalies: Map<string, AnomalyFacts>;
  /** Retry pools covering the steps, keyed `agent/step`. */
  pools?: Map<string, StepPoolCoverage>;
  /** How the steps' attempts reached Holdfast, keyed `agent/step`. */
  sources?: Map<string, StepSource[]>;
  /** How the steps' attempts were costed, keyed `agent/step`: named under their spend. */
  costSources?: Map<string, StepCostSource[]>;
  /** Who answers for each step, keyed `agent/step`. */
  owners?: Map<string, StepOwnerView>;
}) {
  return (
    <Table data-testid="steps-table">
      <caption className="sr-only">
        Steps, sorted by {sortLabel(view.sort)} {view.dir === 'asc' ? 'ascending' : 'descending'}
      </caption>
      <thead>
        <tr>
          {stepColumns.map((column) => {
            const sortedBy = [column.key, column.changeSort].find((key) => key === view.sort);
            return (
              <HeaderCell
                key={column.key}
                numeric={column.numeric}
                title={column.help}
                className={phoneClass(column)}
                aria-sort={sortedBy ? (view.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
              >
                <SortLink view={view} sort={column.key} label={column.label} />
                {column.changeSort ? (
                  <SortLink view={view} sort={column.changeSort} label="by change" className="block text-[11px]" />
                ) : null}
              </HeaderCell>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {steps.map((row) => (
          <tr
            key={`${row.agent}/${row.step}`}
            data-testid={`steps-row-${row.agent}-${row.step}`}
            className="align-top hover:bg-surface-raised"
          >
            {stepColumns.map((column) => (
              <Cell
                key={column.key}
                numeric={column.numeric}
                data-testid={column.key}
                // A step's name breaks only after its separators; on a phone the agent is shown above it, and only the
                // step, its retry rate and its retry spend are shown (the rest on the step's page).
                className={`${phoneClass(column)} ${column.key === 'step' ? 'min-w-[8rem] font-mono text-[12px] [overflow-wrap:anywhere]' : ''} ${column.key === 'latencyP50Ms' || column.key === 'latencyP95Ms' ? 'whitespace-nowrap' : ''}`}
              >
                {column.key === 'step' ? (
                  <>
                    <span className="block font-sans text-[11px] text-muted md:hidden">
                      <VisibleText text={row.agent} />
                      {owners ? (
                        <>
                          {' · '}
                          <OwnerName owner={owners.get(`${row.agent}/${row.step}`)} testId="step-owner-phone" />
                        </>
                      ) : null}
                    </span>
                    <Link
                      href={stepDetailHref(row.agent, row.step, view.window === 'custom' ? '24h' : view.window)}
                      className="text-accent hover:underline"
                    >
                      <VisibleText text={row.step} />
                    </Link>
                  </>
                ) : column.key === 'agent' ? (
                  <>
                    <VisibleText text={row.agent} />
                    {owners ? (
                      <OwnerName
                        owner={owners.get(`${row.agent}/${row.step}`)}
                        className="block text-[11px] text-muted [overflow-wrap:anywhere]"
                      />
                    ) : null}
                  </>
                ) : (
                  column.show(row)
                )}
                {column.key === 'step' && isNewStep(row) ? (
                  <span
                    className="ml-1 rounded bg-accent-soft px-1 font-sans text-[11px] text-ink"
                    data-testid="new-step"
                    title="No attempts in the previous window: nothing to compare with"
                  >
                    new
                  </span>
                ) : null}
                {column.key === 'step' ? <SourceBadges sources={sources?.get(`${row.agent}/${row.step}`)} /> : null}
                {column.key === 'step' ? <AnomalyFlag anomaly={anomalies.get(`${row.agent}/${row.step}`)} /> : null}
                {column.key === 'step' ? <RetryPoolBadge coverage={pools?.get(`${row.agent}/${row.step}`)} /> : null}
                <FigureChange column={column.key} row={row} />
                {column.key === 'totalSpendMicros' ? (
                  <CostSources sources={costSources?.get(`${row.agent}/${row.step}`)} />
                ) : null}
                {column.key === 'retrySpendMicros' ? (
                  <RetryCauses causes={retryCauses?.byStep.get(`${row.agent}/${row.step}`)} />
                ) : null}
                {column.key === 'failures' && row.failures > 0 ? (
                  <span className="block text-[11px] text-muted">
                    {/* Each class with its count on one line: "transient 1", never "transient" over "1". */}
                    {Object.entries(row.failuresByClass).map(([errorClass, count], index) => (
                      <span key={errorClass} className="whitespace-nowrap">
                        {index > 0 ? ', ' : ''}
                        {errorClass} {count}
                      </span>
                    ))}
                  </span>
                ) : null}
              </Cell>
            ))}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** A header's link that sorts by a column (descending first), marked with the direction when the view sorts by it. */
function SortLink({
  view,
  sort,
  label,
  className = '',
}: {
  view: StepsView;
  sort: SortColumn;
  label: string;
  className?: string;
}) {
  const sorted = view.sort === sort;
  const nextDir = sorted && view.dir === 'desc' ? 'asc' : 'desc';
  return (
    <Link
      href={stepsViewHref(view, { sort, dir: nextDir })}
      className={`hover:text-ink ${className}`}
      data-testid={`sort-${sort}`}
    >
      {label}
      {sorted ? (view.dir === 'asc' ? ' ▲' : ' ▼') : ''}
    </Link>
  );
}
