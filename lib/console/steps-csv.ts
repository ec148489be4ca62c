import type { ComparedStepStats } from '../queries/step-figures';
import type { RetrySpendByCause } from '../queries/retry-spend-by-cause';
import type { StepOwnerView } from '../queries/step-owners';
import type { StepCostSource } from '../queries/step-sources';
import { csvLine } from './audit-view';

/** What the export knows of each step besides its figures, keyed `agent/step`. */
interface StepExtras {
  retryCauses: RetrySpendByCause['byStep'];
  owners: Map<string, StepOwnerView>;
  costSources: Map<string, StepCostSource[]>;
}

const dollars = (micros: number | null | undefined) => (micros == null ? null : micros / 1_000_000);

/**
 * The Steps page's columns as a CSV's, money in US dollars and shares as fractions, for a spreadsheet. The
 * previous window's figures sit beside the window's as plain values (a spreadsheet computes any change from
 * them; previous_attempts 0 is the page's "new"), with the change in retry spend the page sorts by.
 */
const columns: { header: string; value: (row: ComparedStepStats, extras: StepExtras) => unknown }[] = [
  { header: 'agent', value: (row) => row.agent },
  { header: 'step', value: (row) => row.step },
  { header: 'attempts', value: (row) => row.attempts },
  { header: 'retries', value: (row) => row.retries },
  { header: 'retry_rate', value: (row) => row.retryRate },
  { header: 'first_try_success', value: (row) => row.firstTrySuccess },
  { header: 'spend_usd', value: (row) => dollars(row.totalSpendMicros) },
  { header: 'retry_spend_usd', value: (row) => dollars(row.retrySpendMicros) },
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
  { header: 'failed_spend_usd', value: (row) => dollars(row.failedSpendMicros) },
  {
    header: 'retry_spend_by_cause_usd',
    value: (row, { retryCauses }) =>
      (retryCauses.get(`${row.agent}/${row.step}`) ?? [])
        .map((cause) => `${cause.cause} ${dollars(cause.retrySpendMicros)}`)
        .join('; '),
  },
  { header: 'retry_spend_change_usd', value: (row) => dollars(row.retrySpendChangeMicros) },
  { header: 'previous_attempts', value: (row) => row.previous?.attempts },
  { header: 'previous_retries', value: (row) => row.previous?.retries },
  { header: 'previous_retry_rate', value: (row) => row.previous?.retryRate },
  { header: 'previous_first_try_success', value: (row) => row.previous?.firstTrySuccess },
  { header: 'previous_spend_usd', value: (row) => dollars(row.previous?.totalSpendMicros) },
  { header: 'previous_retry_spend_usd', value: (row) => dollars(row.previous?.retrySpendMicros) },
  { header: 'previous_retry_share_of_spend', value: (row) => row.previous?.retryShareOfSpend },
  { header: 'previous_failures', value: (row) => row.previous?.failures },
  { header: 'previous_failed_spend_usd', value: (row) => dollars(row.previous?.failedSpendMicros) },
  // Added after the figures, so that a spreadsheet reading the columns by position keeps working.
  { header: 'owner', value: (row, { owners }) => owners.get(`${row.agent}/${row.step}`)?.owner ?? null },
  { header: 'owner_source', value: (row, { owners }) => owners.get(`${row.agent}/${row.step}`)?.source ?? null },
  {
    header: 'cost_sources',
    value: (row, { costSources }) =>
      (costSources.get(`${row.agent}/${row.step}`) ?? []).map((each) => each.costSource).join('; '),
  },
];

/** The rows as CSV text: a header line, then a line per step in the order given (RFC 4180, formulas defused). */
export function stepsCsv(
  rows: ComparedStepStats[],
  { retryCauses = new Map(), owners = new Map(), costSources = new Map() }: Partial<StepExtras> = {},
): string {
  const extras = { retryCauses, owners, costSources };
  return (
    csvLine(columns.map((column) => column.header)) +
    rows.map((row) => csvLine(columns.map((column) => column.value(row, extras)))).join('')
  );
}
