import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { formatCount, formatMicros, formatUtc } from '@/lib/console/format';
import { costSourceHelp, costSourceLabel } from '@/lib/console/labels/sources';
import { costSources } from '@holdfast/protocol/enums';
import type { CostSourceMix } from '@/lib/queries/cost-source-mix';
import type { RetrySpendEstimate } from './retry-spend-estimate';

const wideOnly = 'hidden sm:table-cell';

/** What the mix counted, said plainly when it is less than the window. */
function coverage(mix: CostSourceMix, retentionDays: number): string {
  if (mix.from >= mix.to)
    return `Attempts are kept ${retentionDays} days and this window lies before them: where its costs came from is not known.`;
  const parts = [`Attempts started from ${formatUtc(mix.from)} to ${formatUtc(mix.to)}, counted from the raw log.`];
  if (mix.clippedToRetention)
    parts.push(`Attempts are kept ${retentionDays} days: the part of the window before that is not counted.`);
  if (mix.cutAfter)
    parts.push(
      `The window holds too many attempts to read them all: counted are the latest, started after ${formatUtc(mix.cutAfter, 'second')}.`,
    );
  return parts.join(' ');
}

/** A figure marked as an estimate, with why in its title and, for screen readers, in its text. */
export function EstimateMark({ why }: { why: string }) {
  // The tooltip is for the pointer; a screen reader reads the hidden sentence alone, once.
  return (
    <span
      data-testid="estimate-mark"
      className="relative whitespace-nowrap rounded bg-warn-soft px-1 py-px font-sans text-[10px] font-semibold text-warn"
    >
      <span aria-hidden="true" title={why}>
        estimate
      </span>
      <span className="sr-only">estimate: {why}</span>
    </span>
  );
}

/** Attempts and cost per cost source over the window (or the part of it read), with the retry spend's estimate. */
export function CostSourceMixSection({
  mix,
  retentionDays,
  estimate,
  of = 'this step',
}: {
  mix: CostSourceMix;
  retentionDays: number;
  estimate: RetrySpendEstimate | null;
  /** What the attempts are of, for the table's caption: this step, or an agent's steps. */
  of?: string;
}) {
  const total = (pick: (share: CostSourceMix['shares'][number]) => number) =>
    mix.shares.reduce((sum, share) => sum + pick(share), 0);
  return (
    <section aria-labelledby="cost-sources-title" className="mt-5" data-testid="cost-source-mix">
      <h2 id="cost-sources-title" className="mb-1 text-[13px] font-semibold">
        Where the costs came from
      </h2>
      <p className="mb-2 text-[12px] text-muted" data-testid="cost-source-coverage">
        {coverage(mix, retentionDays)}
      </p>
      {mix.shares.length === 0 ? (
        <p className="text-[13px] text-muted" data-testid="cost-source-empty">
          No attempts to count here.
        </p>
      ) : (
        <div className="max-w-3xl">
          <Table>
            <caption className="sr-only">Attempts and cost of {of} by where the cost came from</caption>
            <thead>
              <tr>
                <HeaderCell>Cost source</HeaderCell>
                <HeaderCell numeric>Attempts</HeaderCell>
                <HeaderCell numeric>Cost</HeaderCell>
                {/* Left out on a phone, where five columns and the estimate mark do not fit; the charts count retries. */}
                <HeaderCell numeric className={wideOnly}>
                  Retries
                </HeaderCell>
                <HeaderCell numeric>Retry spend</HeaderCell>
              </tr>
            </thead>
            <tbody>
              {mix.shares.map((share) => (
                <tr
                  key={share.costSource ?? 'unrecorded'}
                  data-testid={`cost-source-${share.costSource ?? 'unrecorded'}`}
                >
                  <Cell
                    className="whitespace-nowrap font-mono text-[12px]"
                    title={costSourceHelp[share.costSource ?? 'unrecorded']}
                  >
                    {costSourceLabel(share.costSource)}
                  </Cell>
                  <Cell numeric data-testid="attempts">
                    {formatCount(share.attempts)}
                  </Cell>
                  <Cell numeric data-testid="cost">
                    {formatMicros(share.costMicros)}
                  </Cell>
                  <Cell numeric data-testid="retries" className={wideOnly}>
                    {formatCount(share.retries)}
                  </Cell>
                  <Cell numeric data-testid="retry-cost">
                    {formatMicros(share.retryCostMicros)}
                  </Cell>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr className="font-medium" data-testid="cost-source-total">
                <Cell>All</Cell>
                <Cell numeric>{formatCount(total((share) => share.attempts))}</Cell>
                <Cell numeric>{formatMicros(total((share) => share.costMicros))}</Cell>
                <Cell numeric className={wideOnly}>
                  {formatCount(total((share) => share.retries))}
                </Cell>
                {/* The amount keeps together; its mark goes under it on a phone rather than widen the table. */}
                <Cell numeric data-testid="retry-cost">
                  <span className="whitespace-nowrap">{formatMicros(total((share) => share.retryCostMicros))}</span>
                  {estimate ? (
                    <>
                      {' '}
                      <EstimateMark why={estimate.why} />
                    </>
                  ) : null}
                </Cell>
              </tr>
            </tfoot>
          </Table>
        </div>
      )}
      {estimate ? (
        <p className="mt-2 max-w-prose text-[12px]" data-testid="retry-spend-estimate">
          {estimate.why}
        </p>
      ) : null}
      <details className="mt-2 text-[12px] text-muted">
        <summary className="cursor-pointer">What the cost sources mean</summary>
        <dl className="mt-2 grid grid-cols-[7rem_1fr] gap-x-3 gap-y-1">
          {[...costSources, 'unrecorded' as const].map((source) => (
            <div key={source} className="contents">
              <dt className="font-mono text-ink">{source === 'unrecorded' ? costSourceLabel(null) : source}</dt>
              <dd>{costSourceHelp[source]}</dd>
            </div>
          ))}
        </dl>
      </details>
    </section>
  );
}
