import type { Metadata } from 'next';
import { KeysetPager, type PagePosition } from '@/components/console/keyset-pager';
import { ListPage, ListSection } from '@/components/console/list-page';
import { decide, describeBrakeRefusals, GROUP_DISCARD_LIMIT } from '@holdfast/engine/core';
import { deadLettersHref } from '@/lib/console/filter-forms/dead-letters';
import { deadLettersUrlFilter, deadLettersUrlPage, toDeadLetterFilter } from '@/lib/filters/dead-letters';
import { readFilter } from '@/lib/filters/read-filter';
import { corePolicyFrom, getEnvironment } from '@holdfast/engine/env';
import { formatCount } from '@/lib/console/format';
import { deadLetterFilterChoices, listBulkRedrives, listPendingDeadLetters } from '@/lib/queries/dead-letters';
import { describeErrorGroup } from '@/lib/queries/error-groups';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { brakeLabels, describeBrakes } from './brake-labels';
import { BulkRedrivePanel } from './bulk-redrive-panel';
import { BulkRedrivesHistory } from './bulk-redrives-history';
import { DiscardGroupPanel } from './discard-group-panel';
import { DeadLetterFilters } from './dead-letter-filters';
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
    value: [page, choices, runs, group],
    source,
  } = await readConsole((db) =>
    Promise.all([
      listPendingDeadLetters(db, filter, { brakes: redriveBrakes, now }, at),
      deadLetterFilterChoices(db),
      listBulkRedrives(db),
      filter.group ? describeErrorGroup(db, filter.group) : undefined,
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
  // A whole group may be discarded at once when the list is that group alone: the count shown is then the group's.
  const groupOnly =
    filter.group && Object.entries(filter).every(([name, value]) => name === 'group' || value === undefined)
      ? filter.group
      : undefined;
  const canOverride = decide(person, 'dead_letter.redrive_override').allowed;
  const filtered = Object.values(filter).some((value) => value !== undefined);
  const [first, last] = [rows[0], rows.at(-1)];
  // The list's cursor is a dead letter's id: the one a page starts after, or ends before.
  const span = {
    start: firstIndex,
    end: firstIndex + rows.length - 1,
    total,
    previous: page.hasPrevious && first ? String(first.id) : undefined,
    next: page.hasNext && last ? String(last.id) : undefined,
  };
  const pageHref = (position?: PagePosition) =>
    deadLettersHref(filter, position ? { [position.side]: Number(position.cursor) } : {});

  return (
    <ListPage
      title="Dead letters"
      description={`Work whose retries ran out. Redrive it once the cause is fixed: completed steps replay, the failed one runs again. ${describeBrakes(redriveBrakes)}`}
      readSource={source}
      filters={<DeadLetterFilters filter={filter} choices={choices} filtered={filtered} group={group} />}
      notices={notices}
    >
      <ListSection
        headingId={LIST_HEADING_ID}
        heading="Pending dead letters"
        note={
          rows.length > 0
            ? `Showing ${formatCount(span.start)}–${formatCount(span.end)} of ${formatCount(total)} pending${filtered ? ' matching' : ''}, oldest first`
            : `${formatCount(total)} pending${filtered ? ' matching' : ''}`
        }
        noteTestId="dead-letter-count"
        aside={
          <>
            {redrive.allowed ? (
              <BulkRedrivePanel filter={filter} matching={total} brakeLabels={brakeLabels(redriveBrakes)} />
            ) : (
              <p className="text-[12px] text-muted">Bulk redrive: {redrive.reason}.</p>
            )}
            {groupOnly && total > 0 && total <= GROUP_DISCARD_LIMIT && decide(person, 'dead_letter.discard').allowed ? (
              <DiscardGroupPanel group={groupOnly} pending={total} />
            ) : null}
          </>
        }
        rowCount={rows.length}
        empty={{
          title: filtered ? 'No pending dead letter matches these filters' : 'No pending dead letters',
          testId: 'dead-letters-empty',
          hint: 'Work lands here when its retries, budget or time run out, or it fails permanently.',
        }}
        pager={<KeysetPager page={span} label="Pages of dead letters" testId="dead-letters-pager" hrefFor={pageHref} />}
      >
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
      </ListSection>

      <BulkRedrivesHistory runs={runs} />
    </ListPage>
  );
}
