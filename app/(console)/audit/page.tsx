import type { Metadata } from 'next';
import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { LongText } from '@/components/ui/long-text';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { diffRecord } from '@/lib/console/audit-view';
import { auditExportHref, auditFilter, auditFilterLabels, auditHref } from '@/lib/console/filters/audit';
import { readFilter } from '@/lib/console/read-filter';
import { pageAudit } from '@/lib/queries/audit';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { readConsole } from '@/lib/server/console-reads';
import { readNotice } from '@/lib/console/read-notice';
import { requirePerson } from '@/lib/server/session';
import { FilterNotices } from '@/components/console/filter-notices';
import { KeysetPager, showingText } from '@/components/console/keyset-pager';
import { AuditTarget } from './audit-target';

export const metadata: Metadata = { title: 'Audit' };
export const dynamic = 'force-dynamic';

/** Below 768 px each record is a stacked card (see the Holds page). */
const stack = {
  row: 'max-md:block max-md:border-b max-md:border-line max-md:py-2',
  cell: 'max-md:block max-md:border-0 max-md:py-0.5',
};
const asField = (moment: Date | undefined) => (moment ? moment.toISOString().slice(0, 16) : '');

export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePerson();
  const { filter, notices, accepted } = readFilter(auditFilter, await searchParams);
  const { value: page, source } = await readConsole((db) => pageAudit(db, filter));
  const records = page.rows;
  const filtered = Object.keys(accepted).some((name) => name !== 'after' && name !== 'before');

  return (
    <>
      <PageHeader
        title="Audit"
        description="Every action by people, agents and the sweeper: who, what, when, why, and what it changed. Append-only."
      />
      <ReadSourceNotice notice={readNotice(source)} />
      <form
        method="get"
        className="mb-4 flex flex-wrap items-end gap-3"
        aria-label="Filter the audit log"
        data-testid="audit-filters"
      >
        {(['actor', 'action', 'targetType', 'targetId'] as const).map((name) => (
          <Field key={name} label={auditFilterLabels[name]}>
            <Input name={name} defaultValue={filter[name] ?? ''} />
          </Field>
        ))}
        <Field label={auditFilterLabels.from}>
          <Input type="datetime-local" name="from" defaultValue={asField(filter.from)} />
        </Field>
        <Field label={auditFilterLabels.to}>
          <Input type="datetime-local" name="to" defaultValue={asField(filter.to)} />
        </Field>
        <Button type="submit" size="md">
          Apply
        </Button>
        <a
          href={auditExportHref(accepted)}
          className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-on-accent"
          data-testid="audit-export"
          download
        >
          Export CSV
        </a>
        {filtered ? (
          <Link href={auditHref({})} className="text-[13px] text-accent hover:underline">
            Clear filters
          </Link>
        ) : null}
      </form>
      <FilterNotices notices={notices} />

      <h2 id="audit-heading" className="mb-2 text-[13px] font-semibold">
        Records{' '}
        <span className="font-normal text-muted" data-testid="audit-showing">
          · {showingText(page)}
        </span>
      </h2>
      {records.length === 0 ? (
        <EmptyState title="No audit records match" testId="audit-empty">
          Every clear, redrive, release, switch and sign-in change lands here with its actor and reason.
        </EmptyState>
      ) : (
        <Table data-testid="audit-table" className="max-md:block">
          <caption className="sr-only">Audit records, newest first, {showingText(page)}</caption>
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
                  <Cell className={`font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                    {record.action}
                  </Cell>
                  <Cell className={`max-w-56 font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                    <AuditTarget type={record.targetType} id={record.targetId} />
                  </Cell>
                  <Cell className={`max-w-xs ${stack.cell}`}>
                    {record.reason ? (
                      <LongText text={record.reason} lines={2} />
                    ) : (
                      <span className="text-muted">—</span>
                    )}
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
      )}
      <KeysetPager
        page={page}
        label="Pages of audit records"
        testId="audit-pager"
        hrefFor={(side, cursor) => auditHref(accepted, { side, cursor })}
      />
    </>
  );
}
