import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Age } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { Decision, ReleaseGuardFacts } from '@/lib/core';
import { visibleText } from '@/lib/console/visible-text';
import { ForceReleaseForm } from './lock-forms';
import { guardChecklist } from './release-guards';

/** Below 768 px each lock is a stacked card (see the Holds page). */
const stack = {
  row: 'max-md:block max-md:border-b max-md:border-line max-md:py-2',
  cell: 'max-md:block max-md:border-0 max-md:py-0.5',
};

/**
 * The held locks, stale first, each with its release guards in words and, for
 * someone who may force a release (`release`), the form; a failing guard says
 * why the release is refused.
 */
export function LocksTable({
  locks,
  now,
  release,
  headingId,
}: {
  locks: ReleaseGuardFacts[];
  now: Date;
  release: Decision;
  headingId: string;
}) {
  return (
    <Table data-testid="locks-table" className="max-md:block">
      <caption className="sr-only">Held slot locks, stale first</caption>
      <thead className="max-md:sr-only">
        <tr>
          <HeaderCell>Slot</HeaderCell>
          <HeaderCell>Holder run</HeaderCell>
          <HeaderCell numeric>Token</HeaderCell>
          <HeaderCell>Held since</HeaderCell>
          <HeaderCell>Release guards</HeaderCell>
          <HeaderCell>Action</HeaderCell>
        </tr>
      </thead>
      <tbody className="max-md:block">
        {locks.map((lock) => {
          const checklist = guardChecklist(lock, now);
          const failing = checklist
            .filter((item) => !item.passes)
            .map((item) => `${item.label.toLowerCase()}: no (${item.facts})`);
          return (
            <tr
              key={lock.slot}
              data-testid={`lock-row-${lock.slot}`}
              data-row={lock.slot}
              className={`align-top ${stack.row}`}
            >
              <Cell className={`font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                <VisibleText text={lock.slot} />
                {lock.pastTtl ? (
                  <span className="ml-2 rounded bg-danger-soft px-1.5 py-0.5 text-[11px] text-danger">stale</span>
                ) : null}
              </Cell>
              <Cell className={`font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                <span className="font-sans text-muted md:hidden">Run: </span>
                <VisibleText text={lock.holderRunKey} />
              </Cell>
              <Cell numeric className={`max-md:text-left ${stack.cell}`}>
                <span className="text-muted md:hidden">Token: </span>
                {lock.fencingToken}
              </Cell>
              <Cell className={`whitespace-nowrap text-muted ${stack.cell}`}>
                <span className="md:hidden">Held for </span>
                <Age since={lock.acquiredAt} now={now} />
              </Cell>
              <Cell className={`[overflow-wrap:anywhere] ${stack.cell}`}>
                <ul className="text-[12px]" aria-label={`Release guards for ${visibleText(lock.slot)}`}>
                  {checklist.map((item) => (
                    <li key={item.guard} data-testid={`guard-${item.guard}`} data-passes={item.passes}>
                      <span aria-hidden="true" className={item.passes ? 'text-accent' : 'text-danger'}>
                        {item.passes ? '✓' : '✗'}
                      </span>{' '}
                      <span className="sr-only">{item.passes ? 'passes:' : 'fails:'}</span>
                      {item.label} <span className="text-muted">— {item.shown}</span>
                    </li>
                  ))}
                </ul>
              </Cell>
              <Cell className={`md:min-w-64 ${stack.cell}`}>
                {release.allowed ? (
                  <ForceReleaseForm
                    slot={lock.slot}
                    fencingToken={lock.fencingToken}
                    blockedBy={failing}
                    headingId={headingId}
                  />
                ) : (
                  <p className="text-[12px] text-muted">Force release: {release.reason}.</p>
                )}
              </Cell>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
