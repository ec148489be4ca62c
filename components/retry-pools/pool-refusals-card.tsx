import Link from 'next/link';
import { formatCount } from '@/lib/console/format';
import type { RetryPoolRow } from '@/lib/queries/retry-pools';
import { poolScope } from './pool-format';

const SHOWN = 5;

/** The Overview's small list: which pools refused retries in the last 24 hours, most first. */
export function PoolRefusalsCard({ pools }: { pools: RetryPoolRow[] }) {
  const refusing = pools.filter((pool) => pool.refusals24h > 0).sort((a, b) => b.refusals24h - a.refusals24h);
  return (
    <section
      aria-labelledby="pool-refusals-title"
      className="mb-5 rounded-lg border border-line bg-surface p-3"
      data-testid="pool-refusals"
    >
      <div className="mb-2 flex flex-wrap items-baseline justify-between gap-x-3">
        <h2 id="pool-refusals-title" className="text-[12px] font-medium text-muted">
          Retry refusals by pool (24 h)
        </h2>
        <Link href="/settings/retry-pools" className="text-[12px] text-accent hover:underline">
          {pools.length === 0 ? 'Set up a retry pool' : `All ${formatCount(pools.length)} pools`}
        </Link>
      </div>
      {pools.length === 0 ? (
        <p className="text-[13px] text-muted">No retry pools: only each task&apos;s own allowance limits retries.</p>
      ) : refusing.length === 0 ? (
        <p className="text-[13px] text-muted">No retry was refused in the last 24 hours.</p>
      ) : (
        <ul className="flex flex-col gap-1 text-[13px]">
          {refusing.slice(0, SHOWN).map((pool) => (
            <li
              key={pool.id}
              className="flex flex-wrap items-baseline gap-x-3"
              data-testid={`pool-refusals-${pool.agent}-${pool.step}`}
            >
              <span className="font-mono text-[12px]">{poolScope(pool)}</span>
              <span className={pool.level.left === 0 ? 'font-medium text-danger' : 'text-muted'}>
                {formatCount(pool.refusals24h)} refused · left {formatCount(pool.level.left)} of{' '}
                {formatCount(pool.level.allowed)} now
              </span>
            </li>
          ))}
          {refusing.length > SHOWN ? (
            <li className="text-[12px] text-muted">and {formatCount(refusing.length - SHOWN)} more</li>
          ) : null}
        </ul>
      )}
    </section>
  );
}
