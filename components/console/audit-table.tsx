import { LongText } from '@/components/ui/long-text';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { diffRecord } from '@/lib/console/audit-view';
import type { AuditRecord } from '@holdfast/engine/db/schema';
import { AuditTarget } from './audit-target';

/** Below 768 px each record is a stacked card (see the Holds page). */
const stack = {
  row: 'max-md:block max-md:border-b max-md:border-line max-md:py-2',
  cell: 'max-md:block max-md:border-0 max-md:py-0.5',
};

/** One page of audit records, newest first: who did what to which target, why, and each field it changed. */
export function AuditTable({ records, showing }: { records: AuditRecord[]; showing: string }) {
  return (
    <Table data-testid="audit-table" className="max-md:block">
      <caption className="sr-only">Audit records, newest first, {showing}</caption>
      <thead className="max-md:sr-only">
        <tr>
          <HeaderCell>When</HeaderCell>
          <HeaderCell>Actor</HeaderCell>
          <HeaderCell>Action</HeaderCell>
          <HeaderCell>Target</HeaderCell>
          <HeaderCell>Reason</HeaderCell>
          <HeaderCell>Changes</HeaderCell>
        </tr>
      </thead>
      <tbody className="max-md:block">
        {records.map((record) => {
          const changes = diffRecord(record.before, record.after);
          return (
            <tr key={record.id} className={`align-top ${stack.row}`} data-testid={`audit-row-${record.id}`}>
              <Cell className={`whitespace-nowrap tabular-nums ${stack.cell}`}>
                <Moment value={record.occurredAt} precision="second" />
              </Cell>
              <Cell className={`max-w-56 font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                {record.actorType}:{record.actorId}
              </Cell>
              <Cell className={`font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>{record.action}</Cell>
              <Cell className={`max-w-56 font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                <AuditTarget type={record.targetType} id={record.targetId} />
              </Cell>
              <Cell className={`max-w-xs ${stack.cell}`}>
                {record.reason ? <LongText text={record.reason} lines={2} /> : <span className="text-muted">—</span>}
              </Cell>
              <Cell className={`max-w-md ${stack.cell}`}>
                {changes.length === 0 ? (
                  <span className="text-muted">—</span>
                ) : (
                  <dl className="grid grid-cols-[auto_1fr] gap-x-2 text-[12px]">
                    {changes.map((change) => (
                      <div key={change.field} className="contents">
                        <dt className="font-mono text-muted">{change.field}</dt>
                        <dd className="min-w-0 font-mono [overflow-wrap:anywhere]">
                          {/* A changed detail can be long: each side clamped, the whole behind "Show all". */}
                          <del className="text-danger">
                            <LongText text={change.before} lines={2} />
                          </del>{' '}
                          →{' '}
                          <ins className="text-accent no-underline">
                            <LongText text={change.after} lines={2} />
                          </ins>
                        </dd>
                      </div>
                    ))}
                  </dl>
                )}
              </Cell>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
