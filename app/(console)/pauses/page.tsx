import type { Metadata } from 'next';
import { ListPage, ListSection } from '@/components/console/list-page';
import { decide } from '@/lib/core';
import { listPauses } from '@/lib/queries/pauses';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { PauseForm } from './pause-forms';
import { PausesTable } from './pauses-table';

export const metadata: Metadata = { title: 'Pauses' };
export const dynamic = 'force-dynamic';

const HEADING = 'pauses-heading';
const FORM_HEADING = 'pause-form-heading';

export default async function PausesPage() {
  const person = await requirePerson();
  const now = new Date();
  const { value: pauses, source } = await readConsole((db) => listPauses(db, now));
  const pausing = decide(person, 'step.pause');

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
    </ListPage>
  );
}
