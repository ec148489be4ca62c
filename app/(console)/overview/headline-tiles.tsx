import { formatCount, formatMicros, formatPercent } from '@/lib/console/format';
import type { Compared, OverviewView } from '@/lib/queries/overview';
import { readChange } from './compare';

type Headline = keyof OverviewView['headline'];
/**
 * worseWhenUp: whether a rise is bad news (red) or good (green); undefined for neutral figures such as volume.
 * fromAttempts: counted from attempts, so an empty previous window leaves nothing to compare with.
 */
const tiles: {
  key: Headline;
  label: string;
  format: (value: number) => string;
  worseWhenUp?: boolean;
  fromAttempts?: boolean;
}[] = [
  { key: 'attempts', label: 'Attempts', format: formatCount, fromAttempts: true },
  { key: 'retryRate', label: 'Retry rate', format: formatPercent, worseWhenUp: true, fromAttempts: true },
  { key: 'retrySpendMicros', label: 'Retry spend', format: formatMicros, worseWhenUp: true, fromAttempts: true },
  {
    key: 'retryShareOfSpend',
    label: 'Retry share of spend',
    format: formatPercent,
    worseWhenUp: true,
    fromAttempts: true,
  },
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

/** The headline figures, each against the previous window; the tiles wrap to the width there is. */
export function HeadlineTiles({ view }: { view: OverviewView }) {
  return (
    <div className="grid grid-cols-[repeat(auto-fill,minmax(9.5rem,1fr))] gap-3">
      {tiles.map((tile) => (
        <div
          key={tile.key}
          className="min-w-0 rounded-lg border border-line bg-surface px-4 py-3"
          data-testid={`headline-${tile.key}`}
        >
          <div className="text-[12px] text-muted">{tile.label}</div>
          <div
            className="mt-1 text-xl font-semibold tabular-nums tracking-tight [overflow-wrap:anywhere]"
            data-testid="value"
          >
            {tile.format(view.headline[tile.key].now)}
          </div>
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
