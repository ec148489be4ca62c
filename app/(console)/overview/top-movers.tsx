import Link from 'next/link';
import { formatMicros, formatPercent } from '@/lib/console/format';
import type { OverviewView } from '@/lib/queries/overview';
import type { TimeWindowName } from '@holdfast/protocol/time-window';
import { stepDetailHref } from '@/lib/console/step-href';
import { VisibleText } from '@/components/ui/visible-text';

/** The steps whose retries rose most against the previous window, each a link to its detail. */
export function TopMovers({ view, window }: { view: OverviewView; window: TimeWindowName }) {
  return (
    <div className="min-w-0 rounded-lg border border-line bg-surface p-3" data-testid="top-movers">
      <h2 className="mb-2 text-[12px] font-medium text-muted">
        Top movers: retries that rose most against the previous window
      </h2>
      {view.movers.length === 0 ? (
        <p className="text-[13px] text-muted">No step retried more than in the previous window.</p>
      ) : (
        <ul className="flex flex-col gap-1 text-[13px]">
          {view.movers.map((mover) => (
            <li key={mover.step} className="flex flex-wrap gap-x-3" data-testid={`mover-${mover.step}`}>
              <Link
                href={stepDetailHref(mover.agent, mover.stepName, window)}
                className="font-mono text-[12px] text-accent [overflow-wrap:anywhere] hover:underline"
              >
                <VisibleText text={mover.step} />
              </Link>
              {mover.newInWindow ? (
                <span className="text-muted" data-testid="mover-change">
                  <span className="font-medium text-ink">new</span> (no attempts in the previous window): retry rate{' '}
                  {formatPercent(mover.retryRate.now)}, retry spend {formatMicros(mover.retrySpendMicros.now)}
                </span>
              ) : (
                <span className="text-muted" data-testid="mover-change">
                  retry rate {formatPercent(mover.retryRate.before)} → {formatPercent(mover.retryRate.now)}, retry spend{' '}
                  {formatMicros(mover.retrySpendMicros.before)} → {formatMicros(mover.retrySpendMicros.now)}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
