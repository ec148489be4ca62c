import Link from 'next/link';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Age, Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { Decision } from '@holdfast/engine/core';
import type { HeldLock } from '@/lib/queries/locks';
import { OwnerName } from '@/components/console/owner-name';
import { visibleText } from '@/lib/console/visible-text';
import { ForceReleaseForm } from './lock-forms';
import { OverrideReleaseForm } from './override-release-form';
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
  override,
  escalateAfterMinutes,
  headingId,
}: {
  locks: HeldLock[];
  now: Date;
  release: Decision;
  /** Whether the person may release a stale lock its guards refuse (admins). */
  override: Decision;
  /** How long the sweeper refuses a stale lock before it becomes a hold for a person. */
  escalateAfterMinutes: number;
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
                {lock.runAgent ? (
                  <span className="block font-sans text-[11px] text-muted" data-testid="lock-owner">
                    <VisibleText text={lock.runAgent} /> · <OwnerName owner={lock.owner} />
                  </span>
                ) : null}
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
                <Escalation lock={lock} escalateAfterMinutes={escalateAfterMinutes} />
                {lock.pastTtl && failing.length > 0 && override.allowed ? (
                  <OverrideReleaseForm
                    slot={lock.slot}
                    fencingToken={lock.fencingToken}
                    overridden={failing}
                    latestEvidence={lock.latestEvidence}
                    headingId={headingId}
                  />
                ) : null}
              </Cell>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}

/** Where a stale lock the sweeper refuses stands on its way to a person: refused since when, held from when. */
function Escalation({ lock, escalateAfterMinutes }: { lock: HeldLock; escalateAfterMinutes: number }) {
  if (lock.escalatedAt)
    return (
      <p className="mt-1 text-[12px] text-warn" data-testid="lock-escalation">
        Held for a person since <Moment value={lock.escalatedAt} /> (a <code>stale_lock</code> hold on{' '}
        <Link href="/holds?reason=stale_lock" className="text-accent underline">
          Holds
        </Link>
        ).
      </p>
    );
  if (!lock.releaseRefusedSince) return null;
  const escalatesAt = new Date(lock.releaseRefusedSince.getTime() + escalateAfterMinutes * 60_000);
  return (
    <p className="mt-1 text-[12px] text-muted" data-testid="lock-escalation">
      The sweeper has refused to release it since <Moment value={lock.releaseRefusedSince} />; it becomes a hold for a
      person at <Moment value={escalatesAt} /> ({escalateAfterMinutes} min of refusals).
    </p>
  );
}
