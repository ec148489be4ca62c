import { formatCount, formatMicros } from '@/lib/console/format';
import { retryCauseLabel } from '@/lib/console/retry-causes';
import type { RetryCauseSpend } from '@/lib/queries/retry-spend-by-cause';

/**
 * A step's retry spend by the failure that caused each retry, folded under its retry spend: the summary is
 * visible and reachable by keyboard (Tab, then Enter), the list opens in place on any screen.
 */
export function RetryCauses({ causes }: { causes: RetryCauseSpend[] | undefined }) {
  if (!causes || causes.length === 0) return null;
  return (
    <details className="text-left text-[11px]" data-testid="retry-causes">
      <summary className="cursor-pointer text-right text-accent">by cause</summary>
      <ul className="mt-1 space-y-0.5">
        {causes.map((cause) => (
          <li key={cause.cause} className="flex justify-between gap-2" data-testid={`retry-cause-${cause.cause}`}>
            <span className="text-muted">{retryCauseLabel(cause.cause)}</span>
            <span className="whitespace-nowrap">
              {formatMicros(cause.retrySpendMicros)} · {formatCount(cause.retries)}
            </span>
          </li>
        ))}
      </ul>
    </details>
  );
}
