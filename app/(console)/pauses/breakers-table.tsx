import Link from 'next/link';
import { stacked } from '@/components/ui/stacked-rows';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { formatCount } from '@/lib/console/format';
import type { BreakerView } from '@/lib/queries/breakers';
import { stepDetailHref } from '@/lib/console/step-href';

export const breakerStateLabel = { open: 'Open', half_open: 'Half-open (probing)', closed: 'Closed' } as const;

/** Why it opened, in words: the failing share of the window's attempts. */
export function openedBecause(breaker: Pick<BreakerView, 'failureShare' | 'volume'>): string {
  if (breaker.failureShare === null || breaker.volume === null) return '';
  return `${Math.round(breaker.failureShare * 100)}% of ${formatCount(breaker.volume)} attempts failing`;
}

/** Circuit breakers open, probing, or closed in the last day, each with why it opened and when it probes next. */
export function BreakersTable({ breakers }: { breakers: BreakerView[] }) {
  return (
    <Table data-testid="breakers-table" className={stacked.table}>
      <caption className="sr-only">
        Circuit breakers open or probing now, then those that closed in the last day
      </caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell>What</HeaderCell>
          <HeaderCell>State</HeaderCell>
          <HeaderCell>Opened</HeaderCell>
          <HeaderCell>Why</HeaderCell>
          <HeaderCell>Next probe</HeaderCell>
          <HeaderCell>Changed</HeaderCell>
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {breakers.map((breaker) => (
          <tr key={breaker.target} data-testid={`breaker-row-${breaker.target}`} className={`align-top ${stacked.row}`}>
            <Cell className={`min-w-32 [overflow-wrap:anywhere] ${stacked.cell}`} data-label="What">
              {breaker.scope === 'step' && breaker.agent && breaker.step ? (
                <Link
                  href={stepDetailHref(breaker.agent, breaker.step)}
                  className="font-mono text-[12px] text-accent hover:underline"
                >
                  <VisibleText text={`${breaker.agent}/${breaker.step}`} />
                </Link>
              ) : (
                // A downstream breaker is one agent's: only that agent's begins naming the downstream wait on it.
                <span className="text-[12px]">
                  downstream <span className="font-mono">{breaker.downstream}</span>
                  {breaker.agent ? (
                    <>
                      {' '}
                      for agent{' '}
                      <span className="font-mono">
                        <VisibleText text={breaker.agent} />
                      </span>
                    </>
                  ) : null}
                </span>
              )}
            </Cell>
            <Cell className={stacked.cell} data-label="State">
              <span className={breaker.state === 'closed' ? undefined : 'font-medium text-danger'}>
                {breakerStateLabel[breaker.state]}
              </span>
            </Cell>
            <Cell className={`text-[12px] ${stacked.cell}`} data-label="Opened">
              {breaker.openedAt ? <Moment value={breaker.openedAt} /> : '—'}
            </Cell>
            <Cell className={`text-[12px] ${stacked.cell}`} data-label="Why">
              {openedBecause(breaker) || '—'}
            </Cell>
            <Cell className={`text-[12px] ${stacked.cell}`} data-label="Next probe">
              {breaker.state === 'open' && breaker.probeAt ? (
                <Moment value={breaker.probeAt} precision="second" />
              ) : (
                '—'
              )}
            </Cell>
            <Cell className={`text-[12px] text-muted ${stacked.cell}`} data-label="Changed">
              <Moment value={breaker.changedAt} precision="second" />
            </Cell>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
