import Link from 'next/link';
import clsx from 'clsx';
import { formatCount } from '@/lib/console/format';
import type { StepPoolCoverage } from '@/lib/queries/retry-pools';
import { ALL_STEPS, formatWindow } from './pool-format';

/**
 * Marks a step covered by a fleet retry pool: the retries left in the pool
 * that would refuse first, and this step's refused retries in the page's
 * window. Red when the pool is empty, amber when it refused retries.
 */
export function RetryPoolBadge({ coverage }: { coverage: StepPoolCoverage | undefined }) {
  if (!coverage) return null;
  const pools = coverage.pools
    .map(
      (pool) =>
        `${pool.step === ALL_STEPS ? "the agent's pool" : "the step's pool"}: ${formatCount(pool.left)} of ${formatCount(pool.allowed)} retries left over ${formatWindow(pool.windowSeconds)}`,
    )
    .join('; ');
  const explanation = `Covered by ${pools}. ${formatCount(coverage.refusals)} retries of this step refused in this window (refusals are kept for 24 hours).`;
  return (
    <Link
      href="/settings/retry-pools"
      data-testid="retry-pool-badge"
      title={explanation}
      className={clsx(
        // relative: keeps the sr-only explanation inside the table's scroll area on a narrow screen; it wraps there too.
        'relative ml-1.5 inline-block rounded px-1 py-px font-sans text-[10px] font-semibold hover:underline md:whitespace-nowrap',
        coverage.left === 0
          ? 'bg-danger-soft text-danger'
          : coverage.refusals > 0
            ? 'bg-warn-soft text-warn'
            : 'bg-accent-soft text-accent',
      )}
    >
      retry pool: {formatCount(coverage.left)} left / refused {formatCount(coverage.refusals)}
      <span className="sr-only">. {explanation}</span>
    </Link>
  );
}
