import Link from 'next/link';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { LongText } from '@/components/ui/long-text';
import { Age, Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { decide, decideHoldClear } from '@holdfast/engine/core';
import type { Hold } from '@holdfast/engine/db/schema';
import { holdReasonLabels } from '@/lib/console/labels/hold-reasons';
import { visibleText } from '@/lib/console/visible-text';
import { holdHref, ItemLink, itemLabel } from './hold-item-link';
import { isFrozenHold } from '@/lib/queries/frozen-holds';
import type { PersonActor } from '@/lib/server/session';
import { ClearHoldForm } from './clear-hold-form';
import { ReassignHoldForm } from './hold-forms';

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

/**
 * One page of holds. Open holds carry a tick (for the bulk form `bulkFormId`)
 * and their actions, each refused in words where the person may not; cleared
 * ones say how, by whom and why.
 */
export function HoldsTable({
  rows,
  open,
  person,
  now,
  frozenAfterDays,
  bulkFormId,
  headingId,
}: {
  rows: Hold[];
  open: boolean;
  person: PersonActor;
  now: Date;
  frozenAfterDays: number;
  bulkFormId: string;
  headingId: string;
}) {
  const isFrozen = (hold: Hold) => isFrozenHold(hold, now, frozenAfterDays);
  return (
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
                      form={bulkFormId}
                      aria-label={`Select hold on ${hold.itemType} ${visibleText(hold.itemId)}`}
                    />
                  ) : null}
                </Cell>
              ) : null}
              <Cell className={stack.cell}>
                <Link href={holdHref(hold.id)} className="text-accent hover:underline" data-testid="hold-link">
                  {holdReasonLabels[hold.reason]}
                </Link>
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
                      itemId={hold.itemId}
                      itemLabel={itemLabel(hold)}
                      headingId={headingId}
                      refusal={decision.allowed ? undefined : decision.reason}
                      mayReassign={decide(person, 'hold.reassign', { owner: hold.owner }).allowed}
                    />
                    {decide(person, 'hold.reassign', { owner: hold.owner }).allowed ? (
                      <ReassignHoldForm
                        holdId={hold.id}
                        owner={hold.owner}
                        itemLabel={itemLabel(hold)}
                        headingId={headingId}
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
  );
}
