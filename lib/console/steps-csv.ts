import type { StepStats } from '../queries/step-stats';
import { csvLine } from './audit-view';

/** The Steps page's columns as a CSV's, money in US dollars and shares as fractions, for a spreadsheet. */
const columns: { header: string; value: (row: StepStats) => unknown }[] = [
  { header: 'agent', value: (row) => row.agent },
  { header: 'step', value: (row) => row.step },
  { header: 'attempts', value: (row) => row.attempts },
  { header: 'retries', value: (row) => row.retries },
  { header: 'retry_rate', value: (row) => row.retryRate },
  { header: 'first_try_success', value: (row) => row.firstTrySuccess },
  { header: 'spend_usd', value: (row) => row.totalSpendMicros / 1_000_000 },
  { header: 'retry_spend_usd', value: (row) => row.retrySpendMicros / 1_000_000 },
  { header: 'retry_share_of_spend', value: (row) => row.retryShareOfSpend },
  { header: 'failures', value: (row) => row.failures },
  {
    header: 'failures_by_class',
    value: (row) =>
      Object.entries(row.failuresByClass)
        .map(([errorClass, count]) => `${errorClass} ${count}`)
        .join('; '),
  },
  { header: 'latency_p50_ms', value: (row) => row.latencyP50Ms },
  { header: 'latency_p95_ms', value: (row) => row.latencyP95Ms },
];

/** The rows as CSV text: a header line, then a line per step in the order given (RFC 4180, formulas defused). */
export function stepsCsv(rows: StepStats[]): string {
  return (
    csvLine(columns.map((column) => column.header)) +
    rows.map((row) => csvLine(columns.map((column) => column.value(row)))).join('')
  );
}
