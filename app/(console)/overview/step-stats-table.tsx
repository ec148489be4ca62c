import Link from 'next/link';
import { AnomalyFlag, type AnomalyFacts } from '@/components/ui/anomaly-flag';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import type { SortColumn } from '@/lib/filters/steps';
import { phoneClass, pickStepColumns } from '@/lib/console/step-columns';
import type { StepStats } from '@/lib/queries/step-stats';
import type { TimeWindowName } from '@holdfast/protocol/time-window';
import { stepDetailHref } from '@/lib/console/step-href';
import { VisibleText } from '@/components/ui/visible-text';

/** Above this retry rate a step is marked for attention. */
const HIGH_RETRY_RATE = 0.2;

/** The Overview's few columns, defined with the Steps page's (lib/console/step-columns). */
const columns = pickStepColumns([
  'attempts',
  'retries',
  'retryRate',
  'failures',
  'totalSpendMicros',
  'retrySpendMicros',
]);
const cellTestIds: Partial<Record<SortColumn, string>> = {
  attempts: 'attempts',
  retries: 'retries',
  retryRate: 'retry-rate',
  failures: 'failures',
  totalSpendMicros: 'spend',
  retrySpendMicros: 'retry-spend',
};

export function StepStatsTable({
  steps,
  anomalies,
  window,
  testId,
}: {
  steps: StepStats[];
  anomalies: Record<string, AnomalyFacts>;
  window: TimeWindowName;
  testId: string;
}) {
  return (
    <Table data-testid={testId}>
      <caption className="sr-only">Retry figures per agent and step, most retry spend first</caption>
      <thead>
        <tr>
          <HeaderCell className="max-md:hidden">Agent</HeaderCell>
          <HeaderCell>Step</HeaderCell>
          {columns.map((column) => (
            <HeaderCell key={column.key} numeric title={column.help} className={phoneClass(column)}>
              {column.label}
            </HeaderCell>
          ))}
        </tr>
      </thead>
      <tbody>
        {steps.map((step) => (
          <tr
            key={`${step.agent}/${step.step}`}
            data-testid={`step-row-${step.agent}-${step.step}`}
            className="hover:bg-surface-raised"
          >
            <Cell className="text-muted max-md:hidden">
              <VisibleText text={step.agent} />
            </Cell>
            {/* A name breaks only after its separators; on a phone the agent is shown above it (its column hidden). */}
            <Cell className="min-w-[8rem] font-mono text-[12px] [overflow-wrap:anywhere]">
              <span className="block font-sans text-[11px] text-muted md:hidden">
                <VisibleText text={step.agent} />
              </span>
              <Link href={stepDetailHref(step.agent, step.step, window)} className="text-accent hover:underline">
                <VisibleText text={step.step} />
              </Link>
              <AnomalyFlag anomaly={anomalies[`${step.agent}/${step.step}`]} />
            </Cell>
            {columns.map((column) => (
              <Cell key={column.key} numeric data-testid={cellTestIds[column.key]} className={phoneClass(column)}>
                {column.key === 'retryRate' ? (
                  <span className={step.retryRate > HIGH_RETRY_RATE ? 'font-semibold text-warn' : undefined}>
                    {column.show(step)}
                  </span>
                ) : (
                  column.show(step)
                )}
              </Cell>
            ))}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
