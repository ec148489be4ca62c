import type { Metadata } from 'next';
import { ListPage, ListSection } from '@/components/console/list-page';
import { Moment } from '@/components/ui/time';
import { decide } from '@holdfast/engine/core';
import { getEnvironment } from '@holdfast/engine/env';
import { getKillSwitch, listHeldLocks } from '@/lib/queries/locks';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { KillSwitchForm } from './lock-forms';
import { LocksTable } from './locks-table';

export const metadata: Metadata = { title: 'Locks' };
export const dynamic = 'force-dynamic';

const HEADING = 'locks-heading';
const SWITCH_HEADING = 'kill-switch-heading';

export default async function LocksPage() {
  const person = await requirePerson();
  const {
    value: [locks, killSwitch],
    source,
  } = await readConsole((db) => Promise.all([listHeldLocks(db), getKillSwitch(db, 'stale_lock_release')]));
  const now = new Date();
  const release = decide(person, 'slot.force_release');
  const override = decide(person, 'slot.override_release');
  const switching = decide(person, 'kill_switch.set');
  const engaged = killSwitch?.engaged ?? false;

  const automaticRelease = (
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
  );

  return (
    <ListPage
      title="Locks"
      description="Held slot locks, stale ones first. A stale lock is released only when every guard passes, checked again on the server; an admin may release one its guards refuse, with a reason."
      readSource={source}
      refreshedAt={now}
      intro={automaticRelease}
    >
      <ListSection
        headingId={HEADING}
        heading="Held locks"
        count={locks.length}
        rowCount={locks.length}
        empty={{
          title: 'No held locks',
          testId: 'locks-empty',
          hint: 'A run holds a slot lock while it works on a slot (a page, an account, a send window); none is held now.',
        }}
      >
        <LocksTable
          locks={locks}
          now={now}
          release={release}
          override={override}
          escalateAfterMinutes={getEnvironment().HOLDFAST_STALE_LOCK_ESCALATE_MINUTES}
          headingId={HEADING}
        />
      </ListSection>
    </ListPage>
  );
}
