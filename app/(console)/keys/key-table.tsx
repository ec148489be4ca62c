import Link from 'next/link';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { IdempotencyKey } from '@holdfast/engine/db/schema';
import { keyHref } from '@/lib/console/filter-forms/keys';
import { StepLink, TaskLink } from '../tasks/links';

const when = (moment: Date | null) => <Moment value={moment} precision="second" />;

/** Below 768 px each key is a stacked card (see the Holds page). */
const stack = {
  row: 'max-md:block max-md:border-b max-md:border-line max-md:py-2',
  cell: 'max-md:block max-md:border-0 max-md:py-0.5',
};

export function KeyTable({ rows, testId, caption }: { rows: IdempotencyKey[]; testId: string; caption: string }) {
  return (
    <Table data-testid={testId} className="max-md:block">
      <caption className="sr-only">{caption}</caption>
      <thead className="max-md:sr-only">
        <tr>
          <HeaderCell>Key</HeaderCell>
          <HeaderCell>Status</HeaderCell>
          <HeaderCell>Task / step</HeaderCell>
          <HeaderCell>In progress until</HeaderCell>
          <HeaderCell>Kept until</HeaderCell>
        </tr>
      </thead>
      <tbody className="max-md:block">
        {rows.map((row) => (
          <tr key={row.key} className={stack.row}>
            <Cell className={`max-w-md font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
              <Link href={keyHref(row.key)} className="text-accent hover:underline">
                <VisibleText text={row.key} />
              </Link>
            </Cell>
            <Cell className={`font-mono text-[12px] ${stack.cell}`}>{row.status}</Cell>
            <Cell className={`max-w-xs font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
              {row.taskId ? <TaskLink taskId={row.taskId} /> : '—'} /{' '}
              {row.step ? <StepLink agent={row.agent} step={row.step} /> : '—'}
            </Cell>
            <Cell className={`whitespace-nowrap ${stack.cell}`}>
              <span className="text-muted md:hidden">In progress until </span>
              {when(row.lockedUntil)}
            </Cell>
            <Cell className={`whitespace-nowrap ${stack.cell}`}>
              <span className="text-muted md:hidden">Kept until </span>
              {when(row.expiresAt)}
            </Cell>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Said when a fixed list shows fewer than there are, so it never stops silently. */
export function LimitNote({ shown, total }: { shown: number; total: number }) {
  if (shown >= total) return null;
  return (
    <p className="mb-2 text-[12px] text-warn" data-testid="keys-list-limit">
      Showing the first {shown} of {total}: look them up by task or step above to see the rest.
    </p>
  );
}
