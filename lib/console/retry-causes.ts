import type { RetryCause } from '../queries/retry-spend-by-cause';

/** How a retry's cause reads on the page and in the CSV: "after transient", or what `ok` and `running` mean. */
export function retryCauseLabel(cause: RetryCause): string {
  if (cause === 'ok') return 'after a success';
  if (cause === 'running') return 'while one ran';
  return `after ${cause}`;
}
