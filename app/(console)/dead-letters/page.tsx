import type { Metadata } from 'next';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { decide, describeBrakeRefusals } from '@/lib/core';
import { deadLettersUrlFilter, deadLettersUrlPage, toDeadLetterFilter } from '@/lib/console/filters/dead-letters';
import { readFilter } from '@/lib/console/read-filter';
import { corePolicyFrom, getEnvironment } from '@/lib/env';
import { formatCount } from '@/lib/console/format';
import { deadLetterFilterChoices, listBulkRedrives, listPendingDeadLetters } from '@/lib/queries/dead-letters';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { readConsole } from '@/lib/server/console-reads';
import { readNotice } from '@/lib/console/read-notice';
import { requirePerson } from '@/lib/server/session';
import { FilterNotices } from '@/components/console/filter-notices';
import { brakeLabels, describeBrakes } from './brake-labels';
import { BulkRedrivePanel } from './bulk-redrive-panel';
import { BulkRedrivesHistory } from './bulk-redrives-history';
import { DeadLetterFilters } from './dead-letter-filters';
import { DeadLettersPager } from './dead-letters-pager';
import { DeadLettersTable } from './dead-letters-table';

const LIST_HEADING_ID = 'dead-letters-heading';

export const metadata: Metadata = { title: 'Dead letters' };
export const dynamic = 'force-dynamic';

export default async function DeadLettersPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const params = await searchParams;
  const { filter: asked, notices: filterNotices } = readFilter(deadLettersUrlFilter, params);
  const { filter: at, notices: pageNotices } = readFilter(deadLettersUrlPage, params);
  const filter = toDeadLetterFilter(asked);
  const now = new Date();
  const { redriveBrakes } = corePolicyFrom(getEnvironment());
  const {
    value: [page, choices, runs],
    source,
  } = await readConsole((db) =>
    Promise.all([
      listPendingDeadLetters(db, filter, { brakes: redriveBrakes, now }, at),
      deadLetterFilterChoices(db),
      listBulkRedrives(db),
    ]),
  );
  const { rows, total, firstIndex } = page;
  const notices = [
    ...filterNotices,
    ...pageNotices,
    ...(page.ignoredCursor
      ? [
          `Ignored ${page.ignoredCursor}=“${at[page.ignoredCursor]}”: no such dead letter, so the list starts at the first page`,
        ]
      : []),
  ];
  const redrive = decide(person, 'dead_letter.redrive');
  const canOverride = decide(person, 'dead_letter.redrive_override').allowed;
  const filtered = Object.values(filter).some((value) => value !== undefined);

  return (
    <>
      <PageHeader
        title="Dead letters"
        description={`Work whose retries ran out. Redrive it once the cause is fixed: completed steps replay, the failed one runs again. ${describeBrakes(redriveBrakes)}`}
      />
      <ReadSourceNotice notice={readNotice(source)} />

      <DeadLetterFilters filter={filter} choices={choices} filtered={filtered} />
      <FilterNotices notices={notices} />

      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2 id={LIST_HEADING_ID} tabIndex={-1} className="text-[15px] font-semibold focus:outline-none">
            Pending dead letters
          </h2>
          <p className="text-[13px] text-muted" data-testid="dead-letter-count">
            {rows.length > 0
              ? `Showing ${formatCount(firstIndex)}–${formatCount(firstIndex + rows.length - 1)} of ${formatCount(total)} pending${filtered ? ' matching' : ''}, oldest first`
              : `${formatCount(total)} pending${filtered ? ' matching' : ''}`}
          </p>
        </div>
        {redrive.allowed ? (
          <BulkRedrivePanel filter={filter} matching={total} brakeLabels={brakeLabels(redriveBrakes)} />
        ) : (
          <p className="text-[12px] text-muted">Bulk redrive: {redrive.reason}.</p>
        )}
      </div>

      {rows.length === 0 ? (
        <EmptyState
          title={filtered ? 'No pending dead letter matches these filters' : 'No pending dead letters'}
          testId="dead-letters-empty"
        >
          Work lands here when its retries, budget or time run out, or it fails permanently.
        </EmptyState>
      ) : (
        <>
          <DeadLettersTable
            rows={rows.map((letter) => ({
              id: letter.id,
              taskId: letter.taskId,
              queue: letter.queue,
              agent: letter.agent,
              step: letter.step,
              reason: letter.reason,
              errorClass: letter.errorClass,
              lastError: letter.lastError,
              attempts: letter.attempts,
              spendMicros: letter.spendMicros,
              createdAt: letter.createdAt,
              brakedBy: letter.brakes.length > 0 ? describeBrakeRefusals(letter.brakes) : undefined,
            }))}
            now={now}
            headingId={LIST_HEADING_ID}
            refusal={redrive.allowed ? undefined : redrive.reason}
            canOverride={canOverride}
          />
          <DeadLettersPager
            filter={filter}
            firstId={rows[0]?.id}
            lastId={rows.at(-1)?.id}
            hasPrevious={page.hasPrevious}
            hasNext={page.hasNext}
          />
        </>
      )}

      <BulkRedrivesHistory runs={runs} />
    </>
  );
}
