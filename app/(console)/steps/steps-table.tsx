import Link from 'next/link';
import { RetryPoolBadge } from '@/components/retry-pools/retry-pool-badge';
import { AnomalyFlag, type AnomalyFacts } from '@/components/ui/anomaly-flag';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { formatCount, formatMicros, formatPercent } from '@/lib/format';
import type { StepPoolCoverage } from '@/lib/queries/retry-pools';
import type { StepStats } from '@/lib/queries/step-stats';
import { stepsViewHref, type SortColumn, type StepsView } from '@/lib/steps-view';

interface Column {
  key: SortColumn;
  label: string;
  help: string;
  numeric: boolean;
  show: (row: StepStats) => string;
}

const percentOrDash = (share: number | null) => (share === null ? '—' : formatPercent(share));
const msOrDash = (ms: number | null) => (ms === null ? '—' : `${formatCount(Math.round(ms))} ms`);

/** Every column, with the definition shown as its help. */
export const stepColumns: Column[] = [
  { key: 'agent', label: 'Agent', help: 'The agent that runs the step', numeric: false, show: (row) => row.agent },
  { key: 'step', label: 'Step', help: 'A named stage of a task', numeric: false, show: (row) => row.step },
  { key: 'attempts', label: 'Attempts', help: 'Executions of the step that started in the window', numeric: true, show: (row) => formatCount(row.attempts) },
  { key: 'retries', label: 'Retries', help: 'Attempts with attempt number above 1', numeric: true, show: (row) => formatCount(row.retries) },
  { key: 'retryRate', label: 'Retry rate', help: 'Retries divided by attempts', numeric: true, show: (row) => formatPercent(row.retryRate) },
  { key: 'firstTrySuccess', label: 'First-try success', help: 'Executions that succeeded on attempt 1, divided by executions (attempt-1 rows)', numeric: true, show: (row) => percentOrDash(row.firstTrySuccess) },
  { key: 'totalSpendMicros', label: 'Spend', help: 'Cost of all attempts', numeric: true, show: (row) => formatMicros(row.totalSpendMicros) },
  { key: 'retrySpendMicros', label: 'Retry spend', help: 'Cost of the retries alone', numeric: true, show: (row) => formatMicros(row.retrySpendMicros) },
  { key: 'retryShareOfSpend', label: 'Retry share', help: 'Retry spend divided by total spend', numeric: true, show: (row) => formatPercent(row.retryShareOfSpend) },
  { key: 'failures', label: 'Failures', help: 'Failed attempts; the classes are listed below the count', numeric: true, show: (row) => formatCount(row.failures) },
  { key: 'latencyP50Ms', label: 'p50', help: 'Median latency of finished attempts (nearest rank, read from log-scale histograms: within ±2.4%)', numeric: true, show: (row) => msOrDash(row.latencyP50Ms) },
  { key: 'latencyP95Ms', label: 'p95', help: '95th percentile latency of finished attempts (nearest rank, within ±2.4%)', numeric: true, show: (row) => msOrDash(row.latencyP95Ms) },
];

export function StepsTable({
  steps,
  view,
  anomalies,
  pools,
}: {
  steps: StepStats[];
  view: StepsView;
  anomalies: Map<string, AnomalyFacts>;
  /** Retry pools covering the steps, keyed `agent/step`. */
  pools?: Map<string, StepPoolCoverage>;
}) {
  return (
    <Table data-testid="steps-table">
      <caption className="sr-only">Steps, sorted by {view.sort} {view.dir === 'asc' ? 'ascending' : 'descending'}</caption>
      <thead>
        <tr>
          {stepColumns.map((column) => {
            const sorted = view.sort === column.key;
            const nextDir = sorted && view.dir === 'desc' ? 'asc' : 'desc';
            return (
              <HeaderCell key={column.key} numeric={column.numeric} title={column.help} aria-sort={sorted ? (view.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
                <Link href={stepsViewHref(view, { sort: column.key, dir: nextDir })} className="hover:text-ink" data-testid={`sort-${column.key}`}>
                  {column.label}
                  {sorted ? (view.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                </Link>
              </HeaderCell>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {steps.map((row) => (
          <tr key={`${row.agent}/${row.step}`} data-testid={`steps-row-${row.agent}-${row.step}`} className="align-top hover:bg-surface-raised">
            {stepColumns.map((column) => (
              <Cell key={column.key} numeric={column.numeric} data-testid={column.key} className={column.key === 'step' ? 'font-mono text-[12px]' : undefined}>
                {column.key === 'step' ? (
                  <Link href={`/steps/${encodeURIComponent(row.agent)}/${encodeURIComponent(row.step)}?window=${view.window === 'custom' ? '24h' : view.window}`} className="text-accent hover:underline">
                    {row.step}
                  </Link>
                ) : column.key === 'agent' ? (
                  row.agent
                ) : (
                  column.show(row)
                )}
                {column.key === 'step' ? <AnomalyFlag anomaly={anomalies.get(`${row.agent}/${row.step}`)} /> : null}
                {column.key === 'step' ? <RetryPoolBadge coverage={pools?.get(`${row.agent}/${row.step}`)} /> : null}
                {column.key === 'failures' && row.failures > 0 ? (
                  <span className="block text-[11px] text-muted">
                    {Object.entries(row.failuresByClass).map(([errorClass, count]) => `${errorClass} ${count}`).join(', ')}
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
