import { getClock } from '@/lib/server/db';
import type { Metadata } from 'next';
import { ListPage, ListSection } from '@/components/console/list-page';
import { decide, readBreakerSettings } from '@holdfast/engine/core';
import { formatCount } from '@/lib/console/format';
import { listBreakers } from '@/lib/queries/breakers';
import { listPauses } from '@/lib/queries/pauses';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { BreakerSettingsForm } from './breaker-settings-form';
import { BreakersTable } from './breakers-table';
import { PauseForm } from './pause-forms';
import { PausesTable } from './pauses-table';

export const metadata: Metadata = { title: 'Pauses' };
export const dynamic = 'force-dynamic';

const HEADING = 'pauses-heading';
const FORM_HEADING = 'pause-form-heading';

export default async function PausesPage() {
  const person = await requirePerson();
  // The database's clock, as the actions that end pauses and ramps write by it: a page read just after one
  // judges the pause by the same clock (Node's may be a few milliseconds behind it).
  const now = getClock()();
  const {
    value: [pauses, breakers, settings],
    source,
  } = await readConsole((db) => Promise.all([listPauses(db, now), listBreakers(db, now), readBreakerSettings(db)]));
  const pausing = decide(person, 'step.pause');
  const tuning = decide(person, 'breaker.manage');

  const newPause = (
    <section
      aria-labelledby={FORM_HEADING}
      className="mb-5 rounded-lg border border-line bg-surface px-4 py-3"
      data-testid="new-pause"
    >
      <h2 id={FORM_HEADING} tabIndex={-1} className="mb-2 text-[13px] font-semibold focus:outline-none">
        Pause a step, an agent or a downstream
      </h2>
      {pausing.allowed ? (
        <PauseForm headingId={HEADING} />
      ) : (
        <p className="text-[12px] text-muted">Pausing: {pausing.reason}.</p>
      )}
    </section>
  );

  return (
    <ListPage
      title="Pauses"
      description="What is paused now, why and by whom, and the begins each holds back. While paused, agents' begins wait (PAUSED); nothing runs and nothing is dead-lettered."
      readSource={source}
      refreshedAt={now}
      intro={newPause}
    >
      <ListSection
        headingId={HEADING}
        heading="Paused now"
        count={pauses.current.length}
        rowCount={pauses.current.length}
        empty={{
          title: 'Nothing is paused',
          testId: 'pauses-empty',
          hint: 'Pause a step, an agent or a downstream above when it is doing harm or its downstream is down; agents wait until it is resumed.',
        }}
      >
        <PausesTable
          pauses={pauses.current}
          resume={pausing.allowed}
          headingId={HEADING}
          testId="pauses-table"
          caption="Pauses that hold or ramp up now, newest first"
        />
      </ListSection>
      <ListSection
        headingId="pause-history-heading"
        heading="Ended recently"
        count={pauses.recent.length}
        rowCount={pauses.recent.length}
        empty={{
          title: 'No pause has ended yet',
          testId: 'pause-history-empty',
          hint: 'Ended pauses are listed here.',
        }}
      >
        <PausesTable
          pauses={pauses.recent}
          resume={false}
          headingId="pause-history-heading"
          testId="pause-history-table"
          caption="The latest pauses that ended"
        />
      </ListSection>
      <ListSection
        headingId="breakers-heading"
        heading="Circuit breakers"
        count={breakers.filter((breaker) => breaker.state !== 'closed').length}
        note={`Automatic pauses: a step or downstream opens when ${formatCount(settings.failureShare * 100)}% or more of at least ${formatCount(settings.minimumVolume)} attempts in ${formatCount(settings.windowSeconds)} s failed as the downstream failing; begins wait ${formatCount(settings.coolDownSeconds)} s, then ${formatCount(settings.probes)} probe(s) run; a probe that gets through closes it.`}
        noteTestId="breaker-settings-summary"
        rowCount={breakers.length}
        empty={{
          title: 'No breaker has opened in the last day',
          testId: 'breakers-empty',
          hint: 'Every step and downstream is closed: begins run.',
        }}
      >
        <BreakersTable breakers={breakers} />
      </ListSection>
      <section
        aria-labelledby="breaker-settings-heading"
        className="mb-5 rounded-lg border border-line bg-surface px-4 py-3"
        data-testid="breaker-settings"
      >
        <h2 id="breaker-settings-heading" className="mb-2 text-[13px] font-semibold">
          Breaker settings
        </h2>
        {tuning.allowed ? (
          <BreakerSettingsForm settings={settings} />
        ) : (
          <p className="text-[12px] text-muted">Changing them: {tuning.reason}.</p>
        )}
      </section>
    </ListPage>
  );
}
