import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Age, Moment } from '@/components/ui/time';
import { decide, readReleaseGuards, type ReleaseGuard, type ReleaseGuardFacts } from '@/lib/core';
import { killSwitches } from '@/lib/db/schema';
import { formatUtc } from '@/lib/console/format';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { readConsole } from '@/lib/server/console-reads';
import { readNotice } from '@/lib/console/read-notice';
import { requirePerson } from '@/lib/server/session';
import { LiveRefresh } from '@/components/console/live-refresh';
import { ForceReleaseForm, KillSwitchForm } from './lock-forms';
import { VisibleText } from '@/components/ui/visible-text';
import { visibleText } from '@/lib/console/visible-text';

export const metadata: Metadata = { title: 'Locks' };
export const dynamic = 'force-dynamic';

const when = (moment: Date) => formatUtc(moment, 'second');
const HEADING = 'locks-heading';
const SWITCH_HEADING = 'kill-switch-heading';

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

export default async function LocksPage() {
  const person = await requirePerson();
  const {
    value: [locks, [killSwitch]],
    source,
  } = await readConsole((db) => Promise.all([readReleaseGuards(db), db.select().from(killSwitches)]));
  const now = new Date();
  const release = decide(person, 'slot.force_release');
  const switching = decide(person, 'kill_switch.set');
  const engaged = killSwitch?.engaged ?? false;

  return (
    <>
      <PageHeader
        title="Locks"
        description="Held slot locks, stale ones first. A stale lock is released only when every guard passes, checked again on the server."
        actions={<LiveRefresh renderedAt={now.toISOString()} />}
      />
      <ReadSourceNotice notice={readNotice(source)} />

      <section
        aria-label="Automatic release"
        className="mb-5 rounded-lg border border-line bg-surface px-4 py-3"
        data-testid="kill-switch"
      >
        <h2 id={SWITCH_HEADING} tabIndex={-1} className="text-[13px] font-semibold focus:outline-none">
          Automatic release
        </h2>
        <p className="text-[13px] [overflow-wrap:anywhere]" data-testid="kill-switch-state">
          Automatic release of stale locks by the sweeper is <strong>{engaged ? 'stopped' : 'on'}</strong>
          {killSwitch?.changedBy ? (
            <>
              {' '}
              (set by {killSwitch.changedBy}, <Moment value={killSwitch.changedAt} precision="second" />
              {killSwitch.reason ? `: ${killSwitch.reason}` : ''})
            </>
          ) : null}
          .
        </p>
        {switching.allowed ? (
          <div className="mt-2">
            <KillSwitchForm engaged={engaged} headingId={SWITCH_HEADING} />
          </div>
        ) : (
          <p className="mt-1 text-[12px] text-muted">Switching it: {switching.reason}.</p>
        )}
      </section>

      <h2 id={HEADING} tabIndex={-1} className="mb-2 text-[13px] font-semibold focus:outline-none">
        Held locks <span className="font-normal text-muted">· {locks.length}</span>
      </h2>
      {locks.length === 0 ? (
        <EmptyState title="No held locks" testId="locks-empty">
          A run holds a slot lock while it works on a slot (a page, an account, a send window); none is held now.
        </EmptyState>
      ) : (
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
                        headingId={HEADING}
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
      )}
    </>
  );
}
