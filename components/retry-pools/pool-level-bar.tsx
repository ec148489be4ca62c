import clsx from 'clsx';
import { formatCount } from '@/lib/console/format';

/**
 * A pool's room: "left N of M" with a bar that empties as retries are taken.
 * Red when empty (retries are being refused now), amber under a quarter.
 */
export function PoolLevelBar({ left, allowed, className }: { left: number; allowed: number; className?: string }) {
  const share = allowed === 0 ? 0 : Math.min(1, left / allowed);
  const tone = left === 0 ? 'bg-danger' : share < 0.25 ? 'bg-warn' : 'bg-ok';
  return (
    <div className={clsx('flex min-w-32 flex-col gap-1', className)} data-testid="pool-level">
      <span className={clsx('whitespace-nowrap tabular-nums', left === 0 && 'font-medium text-danger')}>
        left {formatCount(left)} of {formatCount(allowed)}
      </span>
      <span
        aria-hidden
        className="block h-1.5 w-full overflow-hidden rounded-full bg-surface-raised ring-1 ring-line ring-inset"
      >
        <span className={clsx('block h-full rounded-full', tone)} style={{ width: `${Math.round(share * 100)}%` }} />
      </span>
    </div>
  );
}
