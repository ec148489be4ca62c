import type { Metadata } from 'next';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { decide, readReleaseGuards, type ReleaseGuard, type ReleaseGuardFacts } from '@/lib/core';
import { killSwitches } from '@/lib/db/schema';
import { formatUtc } from '@/lib/console/format';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { ForceReleaseForm, KillSwitchForm } from './lock-forms';

export const metadata: Metadata = { title: 'Locks' };
export const dynamic = 'force-dynamic';

const when = (moment: Date) => formatUtc(moment, 'second');

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
): { guard: ReleaseGuard; label: string; passes: boolean; facts: string }[] {
  const failed = new Set(lock.failedGuards);
  return [
    {
      guard: 'past_ttl',
      label: 'Past its time to live',
      passes: !failed.has('past_ttl'),
      facts: `expires ${when(lock.expiresAt)} (${ago(lock.expiresAt, now)})`,
    },
    {
      guard: 'holder_run_finished',
      label: 'Its run is finished',
      passes: !failed.has('holder_run_finished'),
      facts:
        lock.runStatus === null
          ? `run ${lock.holderRunKey} is unknown to Holdfast`
          : `run ${lock.holderRunKey} is ${lock.runStatus}, last heartbeat ${lock.runHeartbeatAt ? ago(lock.runHeartbeatAt, now) : 'never'}`,
    },
    {
      guard: 'no_evidence',
      label: 'No evidence the side effect happened',
      passes: !failed.has('no_evidence'),
      facts:
        lock.evidenceCount === 0
          ? 'no evidence recorded by that run'
          : `${lock.evidenceCount} evidence row(s), latest ${lock.latestEvidence}`,
    },
    {
      guard: 'kill_switch_off',
      label: 'The kill switch allows releases',
      passes: !failed.has('kill_switch_off'),
      facts: lock.killSwitchEngaged ? 'stale_lock_release is engaged' : 'stale_lock_release is off',
    },
  ];
}

export default async function LocksPage() {
  const person = await requirePerson();
  const db = getDb();
  const [locks, [killSwitch]] = await Promise.all([readReleaseGuards(db), db.select().from(killSwitches)]);
  const now = new Date();
  const release = decide(person, 'slot.force_release');
  const switching = decide(person, 'kill_switch.set');
  const engaged = killSwitch?.engaged ?? false;

  return (
    <>
      <PageHeader
        title="Locks"
        description="Held slot locks, stale ones first. A stale lock is released only when every guard passes, checked again on the server."
      />

      <section
        aria-label="Automatic release"
        className="mb-5 rounded-lg border border-line bg-surface px-4 py-3"
        data-testid="kill-switch"
      >
        <p className="text-[13px]">
          Automatic release of stale locks by the sweeper is <strong>{engaged ? 'stopped' : 'on'}</strong>
          {killSwitch?.changedBy
            ? ` (set by ${killSwitch.changedBy}, ${when(killSwitch.changedAt)}${killSwitch.reason ? `: ${killSwitch.reason}` : ''})`
            : ''}
          .
        </p>
        {switching.allowed ? (
          <div className="mt-2">
            <KillSwitchForm engaged={engaged} />
          </div>
        ) : (
          <p className="mt-1 text-[12px] text-muted">Switching it: {switching.reason}.</p>
        )}
      </section>

      {locks.length === 0 ? (
        <EmptyState title="No held locks" testId="locks-empty">
          A run holds a slot lock while it works on a slot (a page, an account, a send window); none is held now.
        </EmptyState>
      ) : (
        <Table data-testid="locks-table">
          <caption className="sr-only">Held slot locks, stale first</caption>
          <thead>
            <tr>
              <HeaderCell>Slot</HeaderCell>
              <HeaderCell>Holder run</HeaderCell>
              <HeaderCell numeric>Token</HeaderCell>
              <HeaderCell>Held since</HeaderCell>
              <HeaderCell>Release guards</HeaderCell>
              <HeaderCell>Action</HeaderCell>
            </tr>
          </thead>
          <tbody>
            {locks.map((lock) => {
              const checklist = guardChecklist(lock, now);
              const failing = checklist
                .filter((item) => !item.passes)
                .map((item) => `${item.label.toLowerCase()}: no (${item.facts})`);
              return (
                <tr key={lock.slot} data-testid={`lock-row-${lock.slot}`} className="align-top">
                  <Cell className="font-mono text-[12px]">
                    {lock.slot}
                    {lock.pastTtl ? (
                      <span className="ml-2 rounded bg-danger-soft px-1.5 py-0.5 text-[11px] text-danger">stale</span>
                    ) : null}
                  </Cell>
                  <Cell className="font-mono text-[12px]">{lock.holderRunKey}</Cell>
                  <Cell numeric>{lock.fencingToken}</Cell>
                  <Cell className="whitespace-nowrap text-muted">{ago(lock.acquiredAt, now)}</Cell>
                  <Cell>
                    <ul className="text-[12px]" aria-label={`Release guards for ${lock.slot}`}>
                      {checklist.map((item) => (
                        <li key={item.guard} data-testid={`guard-${item.guard}`} data-passes={item.passes}>
                          <span aria-hidden="true" className={item.passes ? 'text-accent' : 'text-danger'}>
                            {item.passes ? '✓' : '✗'}
                          </span>{' '}
                          <span className="sr-only">{item.passes ? 'passes:' : 'fails:'}</span>
                          {item.label} <span className="text-muted">— {item.facts}</span>
                        </li>
                      ))}
                    </ul>
                  </Cell>
                  <Cell className="min-w-64">
                    {release.allowed ? (
                      <ForceReleaseForm slot={lock.slot} fencingToken={lock.fencingToken} blockedBy={failing} />
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
