import type { Metadata } from 'next';
import { isFrozenHold } from '@/lib/queries/frozen-holds';
import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { Select } from '@/components/ui/select';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { decide, decideHoldClear, ownersOf } from '@/lib/core';
import { holdReasons, type Hold } from '@/lib/db/schema';
import { getEnvironment } from '@/lib/env';
import { Age, Moment } from '@/components/ui/time';
import { holdsFilter, holdsFilterLabels, holdsHref } from '@/lib/console/filters/holds';
import { keyHref } from '@/lib/console/filters/keys';
import { holdReasonLabels } from '@/lib/console/labels/hold-reasons';
import { readFilter } from '@/lib/console/read-filter';
import { countOpenHoldsByReason, listHoldOwners, listHolds } from '@/lib/queries/holds';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { readConsole } from '@/lib/server/console-reads';
import { readNotice } from '@/lib/console/read-notice';
import { requirePerson } from '@/lib/server/session';
import { LongText } from '@/components/ui/long-text';
import { FilterNotices } from '@/components/console/filter-notices';
import { ClearHoldForm } from './clear-hold-form';
import { BulkClearForm, ReassignHoldForm } from './hold-forms';
import { KeysetPager, showingText } from '@/components/console/keyset-pager';
import { LiveRefresh } from '@/components/console/live-refresh';
import { VisibleText } from '@/components/ui/visible-text';
import { visibleText } from '@/lib/console/visible-text';

export const metadata: Metadata = { title: 'Holds' };
export const dynamic = 'force-dynamic';

const BULK_FORM = 'bulk-clear';
const HEADING = 'holds-heading';

/** Below 768 px each row is a stacked card: the table's parts become blocks, the header is read by screen readers only. */
const stack = {
  table: 'max-md:block',
  head: 'max-md:sr-only',
  body: 'max-md:block',
  row: 'max-md:block max-md:border-b max-md:border-line max-md:py-2',
  cell: 'max-md:block max-md:border-0 max-md:py-0.5',
};

/** A small label shown only in the stacked layout, where there is no column header. */
function StackedLabel({ children }: { children: string }) {
  return <span className="text-[11px] text-muted md:hidden">{children}: </span>;
}

function ItemLink({ hold }: { hold: Hold }) {
  const href =
    hold.itemType === 'task'
      ? `/tasks/${encodeURIComponent(hold.itemId)}`
      : hold.itemType === 'key'
        ? keyHref(hold.itemId)
        : hold.itemType === 'dead_letter'
          ? `/dead-letters/${encodeURIComponent(hold.itemId)}`
          : hold.itemType === 'slot'
            ? '/locks'
            : undefined;
  return href ? (
    <Link href={href} className="text-accent hover:underline">
      {hold.itemType}:<VisibleText text={hold.itemId} />
    </Link>
  ) : (
    <>
      {hold.itemType}:<VisibleText text={hold.itemId} />
    </>
  );
}

const itemLabel = (hold: Hold) => `Hold on ${hold.itemType} ${visibleText(hold.itemId)}`;

export default async function HoldsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const { filter, notices } = readFilter(holdsFilter, await searchParams);
  const frozenAfterDays = getEnvironment().HOLDFAST_FROZEN_AFTER_DAYS;
  const now = new Date();
  const {
    value: [page, counts, owners],
    source,
  } = await readConsole((db) =>
    Promise.all([
      listHolds(db, filter, { owners: ownersOf(person), frozenAfterDays, now }),
      countOpenHoldsByReason(db),
      listHoldOwners(db),
    ]),
  );
  const rows = page.rows;
  const isFrozen = (hold: Hold) => isFrozenHold(hold, now, frozenAfterDays);
  const open = filter.view === 'open';
  // A hold is cleared only by someone who may also do what clearing does to its item (a redrive, a key's release).
  const mayClearAny = rows.some((hold) => decideHoldClear(person, hold).allowed);

  return (
    <>
      <PageHeader
        title="Holds"
        description="Parked work waiting for a person. Resume puts it back to work; discard gives it up."
        actions={<LiveRefresh renderedAt={now.toISOString()} />}
      />
      <ReadSourceNotice notice={readNotice(source)} />

      <nav
        aria-label="Open holds per reason"
        className="mb-3 flex flex-wrap gap-2 text-[12px]"
        data-testid="hold-reason-counts"
      >
        {counts.length === 0 ? <span className="text-muted">No open holds.</span> : null}
        {counts.map(({ reason, count }) => (
          <Link
            key={reason}
            href={holdsHref(filter, { view: undefined, reason: filter.reason === reason ? undefined : reason })}
            aria-current={filter.reason === reason ? 'true' : undefined}
            className="rounded-full border border-line px-2.5 py-0.5 hover:bg-surface-raised aria-[current]:border-accent"
          >
            {holdReasonLabels[reason]} <span className="font-mono text-muted">{reason}</span>{' '}
            <span className="tabular-nums font-medium">{count}</span>
          </Link>
        ))}
      </nav>

      <form
        method="get"
        className="mb-4 flex flex-wrap items-end gap-3"
        aria-label="Filter holds"
        data-testid="hold-filters"
      >
        <Field label={holdsFilterLabels.view}>
          <Select name="view" defaultValue={filter.view}>
            <option value="open">Open</option>
            <option value="cleared">Cleared</option>
          </Select>
        </Field>
        <Field label={holdsFilterLabels.owner}>
          <Select name="owner" defaultValue={filter.owner ?? ''}>
            <option value="">Anyone</option>
            {owners.map((owner) => (
              <option key={owner}>{owner}</option>
            ))}
          </Select>
        </Field>
        <Field label={holdsFilterLabels.reason}>
          <Select name="reason" defaultValue={filter.reason ?? ''}>
            <option value="">Any</option>
            {holdReasons.map((reason) => (
              <option key={reason} value={reason}>
                {holdReasonLabels[reason]} ({reason})
              </option>
            ))}
          </Select>
        </Field>
        <Field label={holdsFilterLabels.minAgeHours}>
          <Input
            name="minAgeHours"
            type="number"
            min={0}
            step="any"
            defaultValue={filter.minAgeHours ?? ''}
            className="w-28"
          />
        </Field>
        <label className="flex items-center gap-1.5 text-[13px]">
          <input type="checkbox" name="mine" value="1" defaultChecked={filter.mine} /> {holdsFilterLabels.mine}
        </label>
        <label className="flex items-center gap-1.5 text-[13px]">
          <input type="checkbox" name="frozen" value="1" defaultChecked={filter.frozen} /> {holdsFilterLabels.frozen}
        </label>
        <Button type="submit" size="md">
          Apply
        </Button>
        <Link href="/holds" className="text-[13px] text-accent hover:underline">
          Clear filters
        </Link>
      </form>
      <FilterNotices notices={notices} />

      {/* Kept when the list empties, so the outcome of the last bulk clear stays in view. */}
      {open && (rows.length === 0 || mayClearAny) ? (
        <div className="mb-3">
          <BulkClearForm formId={BULK_FORM} headingId={HEADING} />
        </div>
      ) : null}

      <h2
        id={HEADING}
        tabIndex={-1}
        className="mb-2 text-[13px] font-semibold focus:outline-none focus-visible:outline-2"
        data-testid="holds-heading"
      >
        {open ? 'Open holds' : 'Cleared holds'}{' '}
        <span className="font-normal text-muted" data-testid="holds-showing">
          · {showingText(page)}
        </span>
      </h2>
      {rows.length === 0 ? (
        <EmptyState title={open ? 'No open holds match' : 'No cleared holds match'} testId="holds-empty">
          Work parks here when it needs a person: retries ran out, an outcome is uncertain, an approval is needed.
        </EmptyState>
      ) : (
        <Table data-testid="holds-table" className={stack.table}>
          <caption className="sr-only">
            {open ? 'Open holds, longest waiting first' : 'Cleared holds, most recent first'}
          </caption>
          <thead className={stack.head}>
            <tr>
              {open ? (
                <HeaderCell>
                  <span className="sr-only">Select</span>
                </HeaderCell>
              ) : null}
              <HeaderCell>Reason</HeaderCell>
              <HeaderCell>Item</HeaderCell>
              <HeaderCell>Detail</HeaderCell>
              <HeaderCell>Owner</HeaderCell>
              <HeaderCell>{open ? 'Waiting' : 'Cleared'}</HeaderCell>
              <HeaderCell>{open ? 'Action' : 'Resolution'}</HeaderCell>
            </tr>
          </thead>
          <tbody className={stack.body}>
            {rows.map((hold) => {
              const decision = decideHoldClear(person, hold);
              return (
                <tr
                  key={hold.id}
                  data-testid={`hold-row-${hold.itemId}`}
                  data-row={hold.id}
                  className={`align-top ${stack.row}`}
                >
                  {open ? (
                    <Cell className={stack.cell}>
                      {decision.allowed ? (
                        <input
                          type="checkbox"
                          name="holdId"
                          value={hold.id}
                          form={BULK_FORM}
                          aria-label={`Select hold on ${hold.itemType} ${visibleText(hold.itemId)}`}
                        />
                      ) : null}
                    </Cell>
                  ) : null}
                  <Cell className={stack.cell}>
                    {holdReasonLabels[hold.reason]}
                    <br />
                    <span className="font-mono text-[11px] text-muted">{hold.reason}</span>
                    {open && isFrozen(hold) ? (
                      <span
                        className="ml-1.5 rounded bg-danger-soft px-1.5 py-0.5 text-[11px] text-danger"
                        data-testid="frozen-badge"
                      >
                        frozen
                      </span>
                    ) : null}
                  </Cell>
                  <Cell className={`max-w-56 font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                    <ItemLink hold={hold} />
                  </Cell>
                  <Cell className={`max-w-md ${stack.cell}`}>
                    <LongText text={hold.detail} />
                  </Cell>
                  <Cell className={`max-w-48 text-muted [overflow-wrap:anywhere] ${stack.cell}`}>
                    <StackedLabel>Owner</StackedLabel>
                    <VisibleText text={hold.owner} />
                  </Cell>
                  <Cell className={`whitespace-nowrap text-muted ${stack.cell}`}>
                    <StackedLabel>{open ? 'Waiting' : 'Cleared'}</StackedLabel>
                    {open ? <Age since={hold.openedAt} now={now} /> : <Moment value={hold.clearedAt} />}
                  </Cell>
                  <Cell className={`md:min-w-72 ${stack.cell}`}>
                    {open ? (
                      <>
                        <ClearHoldForm
                          holdId={hold.id}
                          itemType={hold.itemType}
                          itemLabel={itemLabel(hold)}
                          headingId={HEADING}
                          refusal={decision.allowed ? undefined : decision.reason}
                        />
                        {decide(person, 'hold.reassign', { owner: hold.owner }).allowed ? (
                          <ReassignHoldForm
                            holdId={hold.id}
                            owner={hold.owner}
                            itemLabel={itemLabel(hold)}
                            headingId={HEADING}
                          />
                        ) : null}
                      </>
                    ) : (
                      <span className="text-[12px] [overflow-wrap:anywhere]" data-testid="hold-resolution">
                        {hold.resolution} by {hold.clearedBy}: <VisibleText text={hold.resolutionNote} />
                      </span>
                    )}
                  </Cell>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
      <KeysetPager
        page={page}
        label="Pages of holds"
        testId="holds-pager"
        hrefFor={(side, cursor) =>
          holdsHref(filter, {
            after: side === 'after' ? cursor : undefined,
            before: side === 'before' ? cursor : undefined,
          })
        }
      />
    </>
  );
}
