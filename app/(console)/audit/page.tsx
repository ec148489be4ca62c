import type { Metadata } from 'next';
import { KeysetPager, showingText } from '@/components/console/keyset-pager';
import { ListFilters, ListPage, ListSection } from '@/components/console/list-page';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { auditExportHref, auditFilterLabels, auditHref } from '@/lib/console/filter-forms/audit';
import { auditFilter } from '@/lib/filters/audit';
import { readFilter } from '@/lib/filters/read-filter';
import { pageAudit } from '@/lib/queries/audit';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { AuditTable } from '@/components/console/audit-table';

export const metadata: Metadata = { title: 'Audit' };
export const dynamic = 'force-dynamic';

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
    <ListPage
      title="Audit"
      description="Every action by people, agents and the sweeper: who, what, when, why, and what it changed. Append-only."
      readSource={source}
      filters={
        <ListFilters
          label="Filter the audit log"
          testId="audit-filters"
          clearHref={filtered ? auditHref({}) : undefined}
          actions={
            <a
              href={auditExportHref(accepted)}
              className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-on-accent"
              data-testid="audit-export"
              download
            >
              Export CSV
            </a>
          }
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
        </ListFilters>
      }
      notices={notices}
    >
      <ListSection
        headingId="audit-heading"
        heading="Records"
        count={showingText(page)}
        countTestId="audit-showing"
        rowCount={records.length}
        empty={{
          title: 'No audit records match',
          testId: 'audit-empty',
          hint: 'Every clear, redrive, release, switch and sign-in change lands here with its actor and reason.',
        }}
        pager={
          <KeysetPager
            page={page}
            label="Pages of audit records"
            testId="audit-pager"
            hrefFor={(position) => auditHref(accepted, position)}
          />
        }
      >
        <AuditTable records={records} showing={showingText(page)} />
      </ListSection>
    </ListPage>
  );
}
