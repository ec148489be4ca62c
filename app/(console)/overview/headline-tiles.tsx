import Link from 'next/link';
import { formatCount, formatMicros, formatPercent } from '@/lib/console/format';
import type { Compared, OverviewView } from '@/lib/queries/overview';
import { monthlyProjection, type TimeWindowName } from '@holdfast/protocol/time-window';
import { readChange } from './compare';

type Headline = keyof OverviewView['headline'];
/**
 * worseWhenUp: whether a rise is bad news (red) or good (green); undefined for neutral figures such as volume.
 * fromAttempts: counted from attempts, so an empty previous window leaves nothing to compare with.
 * href: the list behind the figure, filtered or sorted to show what the figure counts.
 */
const tiles: {
  key: Headline;
  label: string;
  format: (value: number) => string;
  worseWhenUp?: boolean;
  fromAttempts?: boolean;
  href: (window: TimeWindowName) => string;
}[] = [
  {
    key: 'attempts',
    label: 'Attempts',
    format: formatCount,
    fromAttempts: true,
    href: (window) => `/steps?window=${window}&sort=attempts`,
  },
  {
    key: 'retryRate',
    label: 'Retry rate',
    format: formatPercent,
    worseWhenUp: true,
    fromAttempts: true,
    href: (window) => `/steps?window=${window}&sort=retryRate`,
  },
  {
    key: 'retrySpendMicros',
    label: 'Retry spend',
    format: formatMicros,
    worseWhenUp: true,
    fromAttempts: true,
    href: (window) => `/steps?window=${window}&sort=retrySpendMicros`,
  },
  {
    key: 'retryShareOfSpend',
    label: 'Retry share of spend',
    format: formatPercent,
    worseWhenUp: true,
    fromAttempts: true,
    href: (window) => `/steps?window=${window}&sort=retryShareOfSpend`,
  },
  { key: 'openHolds', label: 'Open holds', format: formatCount, worseWhenUp: true, href: () => '/holds' },
  {
    key: 'frozenHolds',
    label: 'Frozen holds',
    format: formatCount,
    worseWhenUp: true,
    href: () => '/holds?frozen=1',
  },
  {
    key: 'deadLetterDepth',
    label: 'Dead letters waiting',
    format: formatCount,
    worseWhenUp: true,
    href: () => '/dead-letters',
  },
  // The Locks page lists stale locks first.
  { key: 'staleLocks', label: 'Stale locks', format: formatCount, worseWhenUp: true, href: () => '/locks' },
  {
    key: 'uncertainKeys',
    label: 'Uncertain keys',
    format: formatCount,
    worseWhenUp: true,
    href: () => '/keys#keys-uncertain-heading',
  },
];

function Change({
  figure,
  format,
  worseWhenUp,
  fromAttempts = false,
  previousWindowHadAttempts,
}: {
  figure: Compared;
  format: (value: number) => string;
  worseWhenUp?: boolean;
  fromAttempts?: boolean;
  previousWindowHadAttempts: boolean;
}) {
  const reading = readChange(figure, { fromAttempts, previousWindowHadAttempts });
  switch (reading.kind) {
    case 'now-only':
      return <span className="text-muted">now</span>;
    case 'no-earlier-data':
      return <span className="text-muted">no earlier data</span>;
    case 'no-change':
      return <span className="text-muted">no change</span>;
    default: {
      const up = reading.kind === 'up';
      const tone = worseWhenUp === undefined ? 'text-muted' : up === worseWhenUp ? 'text-danger' : 'text-ok';
      return (
        <span className={tone}>
          {up ? '▲' : '▼'} from {format(reading.from)}
        </span>
      );
    }
  }
}

/**
 * The headline figures, each against the previous window; the tiles wrap to the width there is. Each tile is a
 * link to the list behind its figure: the label is the link, stretched over the tile so the whole tile clicks,
 * and the link's name stays the label.
 */
export function HeadlineTiles({ view }: { view: OverviewView }) {
  return (
    <div className="grid grid-cols-[repeat(auto-fill,minmax(9.5rem,1fr))] gap-3">
      {tiles.map((tile) => (
        <div
          key={tile.key}
          className="relative min-w-0 rounded-lg border border-line bg-surface px-4 py-3 hover:border-accent has-[a:focus-visible]:ring-2 has-[a:focus-visible]:ring-accent"
          data-testid={`headline-${tile.key}`}
        >
          <Link
            href={tile.href(view.window)}
            className="text-[12px] text-muted outline-none after:absolute after:inset-0 after:content-[''] hover:text-ink"
          >
            {tile.label}
          </Link>
          <div
            className="mt-1 text-xl font-semibold tabular-nums tracking-tight [overflow-wrap:anywhere]"
            data-testid="value"
          >
            {tile.format(view.headline[tile.key].now)}
          </div>
          {tile.key === 'retrySpendMicros' && view.window !== '30d' ? (
            <div className="text-[11px] text-muted" data-testid="retry-spend-projection">
              ≈ {formatMicros(monthlyProjection(view.headline.retrySpendMicros.now, view.window))} over 30 days at this
              rate (projection)
            </div>
          ) : null}
          <div className="text-[11px]" data-testid="change">
            <Change
              figure={view.headline[tile.key]}
              format={tile.format}
              worseWhenUp={tile.worseWhenUp}
              fromAttempts={tile.fromAttempts}
              previousWindowHadAttempts={view.previousWindowHadAttempts}
            />
          </div>
        </div>
      ))}
    </div>
  );
}
