import type { ReactNode } from 'react';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Age, Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { Decision, ReleaseGuard, ReleaseGuardFacts } from '@/lib/core';
import { formatUtc } from '@/lib/console/format';
import { visibleText } from '@/lib/console/visible-text';
import { ForceReleaseForm } from './lock-forms';

const when = (moment: Date) => formatUtc(moment, 'second');

/** Below 768 px each lock is a stacked card (see the Holds page). */
const stack = {
  row: 'max-md:block max-md:border-b max-md:border-line max-md:py-2',
  cell: 'max-md:block max-md:border-0 max-md:py-0.5',
};

/** A moment before or after now, with the exact time on hover. */
function Relative({ moment, now }: { moment: Date; now: Date }) {
  return moment.getTime() <= now.getTime() ? (
    <>
      <Age since={moment} now={now} /> ago
    </>
  ) : (
    <>
      at <Moment value={moment} precision="second" />
    </>
  );
}

function ago(moment: Date, now: Date): string {
  const minutes = Math.round((now.getTime() - moment.getTime()) / 60_000);
  if (Math.abs(minutes) < 60) return minutes >= 0 ? `${minutes} min ago` : `in ${-minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours >= 0 ? `${hours} h ago` : `in ${-hours} h`;
}

/** Each guard, in words, with the facts it rests on. */
function guardChecklist(
  lock: ReleaseGuardFacts,
  now: Date,
): { guard: ReleaseGuard; label: string; passes: boolean; facts: string; shown: ReactNode }[] {
  const failed = new Set(lock.failedGuards);
  return [
    {
      guard: 'past_ttl',
      label: 'Past its time to live',
      passes: !failed.has('past_ttl'),
      facts: `expires ${when(lock.expiresAt)} (${ago(lock.expiresAt, now)})`,
      shown: (
        <>
          expires <Moment value={lock.expiresAt} precision="second" /> (
          {lock.expiresAt <= now ? <Relative moment={lock.expiresAt} now={now} /> : 'not yet'})
        </>
      ),
    },
    {
      guard: 'holder_run_finished',
      label: 'Its run is finished',
      passes: !failed.has('holder_run_finished'),
      facts:
        lock.runStatus === null
          ? `run ${visibleText(lock.holderRunKey)} is unknown to Holdfast`
          : `run ${visibleText(lock.holderRunKey)} is ${lock.runStatus}, last heartbeat ${lock.runHeartbeatAt ? ago(lock.runHeartbeatAt, now) : 'never'}`,
      shown:
        lock.runStatus === null ? (
          <>
            run <VisibleText text={lock.holderRunKey} /> is unknown to Holdfast
          </>
        ) : (
          <>
            run <VisibleText text={lock.holderRunKey} /> is {lock.runStatus}, last heartbeat{' '}
            {lock.runHeartbeatAt ? <Relative moment={lock.runHeartbeatAt} now={now} /> : 'never'}
          </>
        ),
    },
    {
      guard: 'no_evidence',
      label: 'No evidence the side effect happened',
      passes: !failed.has('no_evidence'),
      facts:
        lock.evidenceCount === 0
          ? 'no evidence recorded by that run'
          : `${lock.evidenceCount} evidence row(s), latest ${visibleText(lock.latestEvidence)}`,
      shown:
        lock.evidenceCount === 0 ? (
          'no evidence recorded by that run'
        ) : (
          <>
            {lock.evidenceCount} evidence row(s), latest <VisibleText text={lock.latestEvidence} />
          </>
        ),
    },
    {
      guard: 'kill_switch_off',
      label: 'The kill switch allows releases',
      passes: !failed.has('kill_switch_off'),
      facts: lock.killSwitchEngaged ? 'stale_lock_release is engaged' : 'stale_lock_release is off',
      shown: lock.killSwitchEngaged ? 'stale_lock_release is engaged' : 'stale_lock_release is off',
    },
  ];
}

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
