import type { SortColumn } from '../filters/steps';
import type { ComparedStepStats } from '../queries/step-figures';
import type { StepStats } from '../queries/step-stats';
import { formatCount, formatMicros, formatPercent } from './format';

/** A step table's row: the Overview's step stats, or the Steps page's with failed spend and the previous window. */
export type StepRow = StepStats & Partial<ComparedStepStats>;

/** One column of a step table: the Steps page shows them all, the Overview a few. */
export interface StepColumn {
  key: SortColumn;
  label: string;
  /** The definition, shown as the header's title and in the Steps page's "What the columns mean". */
  help: string;
  numeric: boolean;
  show: (row: StepRow) => string;
  /** A second sort the header offers: by the figure's change against the previous window. */
  changeSort?: SortColumn;
  /** Shown on a phone too (below 768 px): the step and its retry figures fit the screen without scrolling. */
  phone?: true;
  /** Among the figures a step's or an agent's headline leads with (headlineColumns). */
  headline?: true;
}

/** A step table's classes for a column: those not shown on a phone are hidden below 768 px. */
export const phoneClass = (column: Pick<StepColumn, 'phone'>) => (column.phone ? '' : 'max-md:hidden');

const percentOrDash = (share: number | null) => (share === null ? '—' : formatPercent(share));
const msOrDash = (ms: number | null) => (ms === null ? '—' : `${formatCount(Math.round(ms))} ms`);

/** Every column, with the definition shown as its help. */
export const stepColumns: StepColumn[] = [
  { key: 'agent', label: 'Agent', help: 'The agent that runs the step', numeric: false, show: (row) => row.agent },
  {
    key: 'step',
    label: 'Step',
    help: 'A named stage of a task',
    numeric: false,
    show: (row) => row.step,
    phone: true,
  },
  {
    key: 'attempts',
    headline: true,
    label: 'Attempts',
    help: 'Executions of the step that started in the window',
    numeric: true,
    show: (row) => formatCount(row.attempts),
  },
  {
    key: 'retries',
    headline: true,
    label: 'Retries',
    help: 'Attempts with attempt number above 1',
    numeric: true,
    show: (row) => formatCount(row.retries),
  },
  {
    key: 'retryRate',
    headline: true,
    label: 'Retry rate',
    help: 'Retries divided by attempts',
    numeric: true,
    show: (row) => formatPercent(row.retryRate),
    phone: true,
  },
  {
    key: 'firstTrySuccess',
    headline: true,
    label: 'First-try success',
    help: 'Executions that succeeded on attempt 1, divided by executions (attempt-1 rows)',
    numeric: true,
    show: (row) => percentOrDash(row.firstTrySuccess),
  },
  {
    key: 'totalSpendMicros',
    headline: true,
    label: 'Spend',
    help: 'Cost of all attempts',
    numeric: true,
    show: (row) => formatMicros(row.totalSpendMicros),
  },
  {
    key: 'retrySpendMicros',
    headline: true,
    label: 'Retry spend',
    help: 'Spend beyond what one try would have cost: the failed attempts before a success, or every attempt after the first when none succeeded (free 429s add nothing). "by cause" splits it by the failure before each retry',
    numeric: true,
    show: (row) => formatMicros(row.retrySpendMicros),
    changeSort: 'retrySpendChangeMicros',
    phone: true,
  },
  {
    key: 'retryShareOfSpend',
    label: 'Retry share',
    help: 'Retry spend divided by total spend',
    numeric: true,
    show: (row) => formatPercent(row.retryShareOfSpend),
  },
  {
    key: 'failures',
    label: 'Failures',
    help: 'Attempts that ended in an error (the Steps table lists their classes below the count)',
    numeric: true,
    show: (row) => formatCount(row.failures),
  },
  {
    key: 'failedSpendMicros',
    headline: true,
    label: 'Failed spend',
    help: 'Cost of the attempts that failed (outcome failed, whatever their number): what work that came to nothing cost',
    numeric: true,
    show: (row) => (row.failedSpendMicros == null ? '—' : formatMicros(row.failedSpendMicros)),
  },
  {
    key: 'latencyP50Ms',
    label: 'p50',
    help: 'Median latency of finished attempts (nearest rank, read from log-scale histograms: within ±2.4%)',
    numeric: true,
    show: (row) => msOrDash(row.latencyP50Ms),
  },
  {
    key: 'latencyP95Ms',
    label: 'p95',
    help: '95th percentile latency of finished attempts (nearest rank, within ±2.4%)',
    numeric: true,
    show: (row) => msOrDash(row.latencyP95Ms),
  },
];

/** The named columns, in the order given. */
export function pickStepColumns(keys: readonly SortColumn[]): StepColumn[] {
  return keys.map((key) => stepColumns.find((column) => column.key === key)!);
}

/** What a sort is called in words, for the table's caption. */
export function sortLabel(sort: SortColumn): string {
  if (sort === 'retrySpendChangeMicros') return 'change in retry spend against the previous window';
  return stepColumns.find((column) => column.key === sort)?.label ?? sort;
}

/**
 * The figures a step's or an agent's headline shows, in the Steps list's words: what it ran, retried and spent
 * (latency and failures by class stay on the list and the charts).
 */
export const headlineColumns = stepColumns.filter((column) => column.headline);
