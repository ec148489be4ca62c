import type { Metadata } from 'next';
import { KeysetPager, showingText } from '@/components/console/keyset-pager';
import { ListPage, ListSection } from '@/components/console/list-page';
import { decideHoldClear, ownersOf } from '@holdfast/engine/core';
import { getEnvironment } from '@holdfast/engine/env';
import { holdsFilter } from '@/lib/filters/holds';
import { holdsHref } from '@/lib/console/filter-forms/holds';
import { readFilter } from '@/lib/filters/read-filter';
import { countOpenHoldsByReason, listHoldOwners, listHolds } from '@/lib/queries/holds';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { HoldFilters, HoldReasonCounts } from './hold-filters';
import { BulkClearForm } from './hold-forms';
import { HoldsTable } from './holds-table';

export const metadata: Metadata = { title: 'Holds' };
export const dynamic = 'force-dynamic';

const BULK_FORM = 'bulk-clear';
const HEADING = 'holds-heading';

export default async function HoldsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const { filter, notices } = readFilter(holdsFilter, await searchParams);
  const frozenAfterDays = getEnvironment().HOLDFAST_FROZEN_AFTER_DAYS;
  const now = new Date();
  const context = { owners: ownersOf(person), frozenAfterDays, now };
  const {
    value: [page, counts, owners],
    source,
  } = await readConsole((db) =>
    Promise.all([listHolds(db, filter, context), countOpenHoldsByReason(db, filter, context), listHoldOwners(db)]),
  );
  const rows = page.rows;
  const open = filter.view === 'open';
  // A hold is cleared only by someone who may also do what clearing does to its item (a redrive, a key's release).
  const mayClearAny = rows.some((hold) => decideHoldClear(person, hold).allowed);

  return (
    <ListPage
      title="Holds"
      description="Parked work waiting for a person. Resume puts it back to work; discard gives it up."
      readSource={source}
      refreshedAt={now}
      intro={<HoldReasonCounts filter={filter} counts={counts} />}
      filters={<HoldFilters filter={filter} owners={owners} />}
      notices={notices}
    >
      {/* Kept when the list empties, so the outcome of the last bulk clear stays in view. */}
      {open && (rows.length === 0 || mayClearAny) ? (
        <div className="mb-3">
          <BulkClearForm formId={BULK_FORM} headingId={HEADING} />
        </div>
      ) : null}

      <ListSection
        headingId={HEADING}
        heading={open ? 'Open holds' : 'Cleared holds'}
        headingTestId="holds-heading"
        count={showingText(page)}
        countTestId="holds-showing"
        rowCount={rows.length}
        empty={{
          title: open ? 'No open holds match' : 'No cleared holds match',
          testId: 'holds-empty',
          hint: 'Work parks here when it needs a person: retries ran out, an outcome is uncertain, an approval is needed.',
        }}
        pager={
          <KeysetPager
            page={page}
            label="Pages of holds"
            testId="holds-pager"
            hrefFor={(position) =>
              holdsHref(filter, {
                after: position?.side === 'after' ? position.cursor : undefined,
                before: position?.side === 'before' ? position.cursor : undefined,
              })
            }
          />
        }
      >
        <HoldsTable
          rows={rows}
          open={open}
          person={person}
          now={now}
          frozenAfterDays={frozenAfterDays}
          bulkFormId={BULK_FORM}
          headingId={HEADING}
        />
      </ListSection>
    </ListPage>
  );
}
