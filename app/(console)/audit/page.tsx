import type { Metadata } from 'next';
import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { diffRecord } from '@/lib/console/audit-view';
import { auditExportHref, auditFilter, auditFilterLabels } from '@/lib/console/filters/audit';
import { readFilter } from '@/lib/console/read-filter';
import { listAudit } from '@/lib/queries/audit';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { FilterNotices } from '../filter-notices';

export const metadata: Metadata = { title: 'Audit' };
export const dynamic = 'force-dynamic';

const PAGE_SIZE = 200;
const asField = (moment: Date | undefined) => (moment ? moment.toISOString().slice(0, 16) : '');

export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePerson();
  const { filter, notices, accepted } = readFilter(auditFilter, await searchParams);
  const records = await listAudit(getDb(), filter, PAGE_SIZE);
  const filtered = Object.keys(accepted).length > 0;

  return (
    <>
      <PageHeader
        title="Audit"
        description="Every action by people, agents and the sweeper: who, what, when, why, and what it changed. Append-only."
      />
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
          <Link href="/audit" className="text-[13px] text-accent hover:underline">
            Clear filters
          </Link>
        ) : null}
      </form>
      <FilterNotices notices={notices} />

      {records.length === 0 ? (
        <EmptyState title="No audit records match" testId="audit-empty">
          Every clear, redrive, release, switch and sign-in change lands here with its actor and reason.
        </EmptyState>
      ) : (
        <Table data-testid="audit-table">
          <caption className="sr-only">Audit records, newest first (at most {PAGE_SIZE}; export for more)</caption>
          <thead>
            <tr>
              <HeaderCell>When (UTC)</HeaderCell>
              <HeaderCell>Actor</HeaderCell>
              <HeaderCell>Action</HeaderCell>
              <HeaderCell>Target</HeaderCell>
              <HeaderCell>Reason</HeaderCell>
              <HeaderCell>Changes</HeaderCell>
            </tr>
          </thead>
          <tbody>
            {records.map((record) => {
              const changes = diffRecord(record.before, record.after);
              return (
                <tr key={record.id} className="align-top" data-testid={`audit-row-${record.id}`}>
                  <Cell className="whitespace-nowrap tabular-nums">
                    {record.occurredAt.toISOString().slice(0, 19).replace('T', ' ')}
                  </Cell>
                  <Cell className="font-mono text-[12px]">
                    {record.actorType}:{record.actorId}
                  </Cell>
                  <Cell className="font-mono text-[12px]">{record.action}</Cell>
                  <Cell className="font-mono text-[12px]">
                    {record.targetType}:{record.targetId}
                  </Cell>
                  <Cell className="max-w-xs">{record.reason}</Cell>
                  <Cell>
                    {changes.length === 0 ? (
                      <span className="text-muted">—</span>
                    ) : (
                      <dl className="grid grid-cols-[auto_1fr] gap-x-2 text-[12px]">
                        {changes.map((change) => (
                          <div key={change.field} className="contents">
                            <dt className="font-mono text-muted">{change.field}</dt>
                            <dd className="font-mono">
                              <del className="text-danger">{change.before}</del> →{' '}
                              <ins className="text-accent no-underline">{change.after}</ins>
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
    </>
  );
}
