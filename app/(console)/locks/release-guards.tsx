import type { ReactNode } from 'react';
import { Age, Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { ReleaseGuard, ReleaseGuardFacts } from '@holdfast/engine/core';
import { formatUtc } from '@/lib/console/format';
import { visibleText } from '@/lib/console/visible-text';

const when = (moment: Date) => formatUtc(moment, 'second');

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
export function guardChecklist(
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
      label: 'Automatic release is on (not stopped above)',
      passes: !failed.has('kill_switch_off'),
      // Worded as the Automatic release section says it, so the two never seem to disagree.
      facts: lock.killSwitchEngaged ? 'automatic release is stopped' : 'automatic release is on',
      shown: lock.killSwitchEngaged ? 'automatic release is stopped' : 'automatic release is on',
    },
  ];
}
