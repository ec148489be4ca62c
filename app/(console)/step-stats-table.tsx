import { AnomalyFlag, type AnomalyFacts } from '@/components/ui/anomaly-flag';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { formatCount, formatMicros, formatPercent } from '@/lib/format';
import type { StepStats } from '@/lib/queries/step-stats';

/** Above this retry rate a step is marked for attention. */
const HIGH_RETRY_RATE = 0.2;

const columns = [
  { label: 'Attempts', help: 'Executions of the step that started in the window' },
  { label: 'Retries', help: 'Attempts with attempt number above 1' },
  { label: 'Retry rate', help: 'Retries divided by attempts' },
  { label: 'Failures', help: 'Attempts that ended in an error' },
  { label: 'Spend', help: 'Cost of all attempts' },
  { label: 'Retry spend', help: 'Cost of the retries alone: what repeating work cost' },
];

export function StepStatsTable({ steps, anomalies }: { steps: StepStats[]; anomalies: Record<string, AnomalyFacts> }) {
  return (
    <Table data-testid="step-stats-table">
      <caption className="sr-only">Retry figures per agent and step, most retry spend first</caption>
      <thead>
        <tr>
          <HeaderCell>Agent</HeaderCell>
          <HeaderCell>Step</HeaderCell>
          {columns.map((column) => (
            <HeaderCell key={column.label} numeric title={column.help}>
              {column.label}
            </HeaderCell>
          ))}
        </tr>
      </thead>
      <tbody>
        {steps.map((step) => (
          <tr key={`${step.agent}/${step.step}`} data-testid={`step-row-${step.agent}-${step.step}`} className="hover:bg-surface-raised">
            <Cell className="text-muted">{step.agent}</Cell>
            <Cell className="font-mono text-[12px]">
              {step.step}
              <AnomalyFlag anomaly={anomalies[`${step.agent}/${step.step}`]} />
            </Cell>
            <Cell numeric data-testid="attempts">{formatCount(step.attempts)}</Cell>
            <Cell numeric data-testid="retries">{formatCount(step.retries)}</Cell>
            <Cell numeric data-testid="retry-rate">
              <span className={step.retryRate > HIGH_RETRY_RATE ? 'font-semibold text-warn' : undefined}>
                {formatPercent(step.retryRate)}
              </span>
            </Cell>
            <Cell numeric data-testid="failures">{formatCount(step.failures)}</Cell>
            <Cell numeric data-testid="spend">{formatMicros(step.totalSpendMicros)}</Cell>
            <Cell numeric data-testid="retry-spend">{formatMicros(step.retrySpendMicros)}</Cell>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
