'use client';

import { useQuery } from '@tanstack/react-query';
import { OverviewCharts } from '@/components/charts/overview-charts';
import { formatCount, formatMicros, formatPercent } from '@/lib/console/format';
import type { Compared, OverviewView } from '@/lib/queries/overview';
import type { TimeWindowName } from '@/lib/time-window';
import { fetchOverview, overviewQueryKey } from './overview-query';
import { STEP_STATS_REFRESH_MS } from './step-stats-query';

type Headline = keyof OverviewView['headline'];
/** worseWhenUp: whether a rise is bad news (red) or good (green); undefined for neutral figures such as volume. */
const tiles: { key: Headline; label: string; format: (value: number) => string; worseWhenUp?: boolean }[] = [
  { key: 'attempts', label: 'Attempts', format: formatCount },
  { key: 'retryRate', label: 'Retry rate', format: formatPercent, worseWhenUp: true },
  { key: 'retrySpendMicros', label: 'Retry spend', format: formatMicros, worseWhenUp: true },
  { key: 'retryShareOfSpend', label: 'Retry share of spend', format: formatPercent, worseWhenUp: true },
  { key: 'openHolds', label: 'Open holds', format: formatCount, worseWhenUp: true },
  { key: 'frozenHolds', label: 'Frozen holds', format: formatCount, worseWhenUp: true },
  { key: 'deadLetterDepth', label: 'Dead letters waiting', format: formatCount, worseWhenUp: true },
  { key: 'staleLocks', label: 'Stale locks', format: formatCount, worseWhenUp: true },
  { key: 'uncertainKeys', label: 'Uncertain keys', format: formatCount, worseWhenUp: true },
];

function Change({
  figure,
  format,
  worseWhenUp,
}: {
  figure: Compared;
  format: (value: number) => string;
  worseWhenUp?: boolean;
}) {
  if (figure.before === null) return <span className="text-muted">now</span>;
  const delta = figure.now - figure.before;
  if (delta === 0) return <span className="text-muted">no change</span>;
  const tone = worseWhenUp === undefined ? 'text-muted' : delta > 0 === worseWhenUp ? 'text-danger' : 'text-ok';
  return (
    <span className={tone}>
      {delta > 0 ? '▲' : '▼'} from {format(figure.before)}
    </span>
  );
}

/** The Overview's headline figures (each against the previous window), its charts and its top movers. */
export function OverviewFigures({ window }: { window: TimeWindowName }) {
  const query = useQuery({
    queryKey: overviewQueryKey(window),
    queryFn: () => fetchOverview(window),
    refetchInterval: STEP_STATS_REFRESH_MS,
  });
  if (!query.data) {
    return query.isError ? (
      <p role="alert" className="text-[13px] text-danger">
        Could not load the headline figures: {query.error.message}
      </p>
    ) : (
      <p role="status" className="text-[13px] text-muted">
        Loading headline figures…
      </p>
    );
  }
  const view = query.data;
  return (
    <section aria-label="Headline figures" className="mb-5 flex flex-col gap-3">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-5">
        {tiles.map((tile) => (
          <div
            key={tile.key}
            className="rounded-lg border border-line bg-surface px-4 py-3"
            data-testid={`headline-${tile.key}`}
          >
            <div className="text-[12px] text-muted">{tile.label}</div>
            <div className="mt-1 text-xl font-semibold tabular-nums tracking-tight" data-testid="value">
              {tile.format(view.headline[tile.key].now)}
            </div>
            <div className="text-[11px]" data-testid="change">
              <Change figure={view.headline[tile.key]} format={tile.format} worseWhenUp={tile.worseWhenUp} />
            </div>
          </div>
        ))}
      </div>
      {view.sideEffects ? (
        <div className="rounded-lg border border-line bg-surface p-3" data-testid="side-effects">
          <h2 className="mb-2 text-[12px] font-medium text-muted">
            Side effects of the demo fleet, all time: what the downstreams really did
          </h2>
          <dl className="flex flex-wrap gap-x-8 gap-y-2 text-[13px]">
            {[
              ['Duplicate deliveries absorbed', view.sideEffects.duplicatesAbsorbed, 'side-effects-absorbed'],
              ['Emails sent', view.sideEffects.emailsSent, 'side-effects-emails'],
              ['Payments charged', view.sideEffects.paymentsCharged, 'side-effects-payments'],
              ['Pages published', view.sideEffects.pagesPublished, 'side-effects-pages'],
              ['Tasks with a side effect done twice', view.sideEffects.tasksWithDuplicateEffects, 'side-effects-twice'],
            ].map(([label, value, testId]) => (
              <div key={String(testId)} data-testid={String(testId)}>
                <dt className="text-[12px] text-muted">{label}</dt>
                <dd className="text-lg font-semibold tabular-nums">{formatCount(Number(value))}</dd>
              </div>
            ))}
          </dl>
        </div>
      ) : null}
      <OverviewCharts view={view} />
      <div className="rounded-lg border border-line bg-surface p-3" data-testid="top-movers">
        <h2 className="mb-2 text-[12px] font-medium text-muted">
          Top movers: retries that rose most against the previous window
        </h2>
        {view.movers.length === 0 ? (
          <p className="text-[13px] text-muted">No step retried more than in the previous window.</p>
        ) : (
          <ul className="flex flex-col gap-1 text-[13px]">
            {view.movers.map((mover) => (
              <li key={mover.step} className="flex flex-wrap gap-x-3">
                <span className="font-mono text-[12px]">{mover.step}</span>
                <span className="text-muted">
                  retry rate {formatPercent(mover.retryRate.before ?? 0)} → {formatPercent(mover.retryRate.now)}, retry
                  spend {formatMicros(mover.retrySpendMicros.before ?? 0)} → {formatMicros(mover.retrySpendMicros.now)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
