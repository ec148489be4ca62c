import type { Metadata } from 'next';
import Form from 'next/form';
import { EmptyState } from '@/components/ui/empty-state';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { formatCount } from '@/lib/console/format';
import { errorsHref, parseErrorsView } from '@/lib/filters/errors';
import { ERROR_GROUPS_SHOWN, getErrorGroups } from '@/lib/queries/error-groups';
import { readConsole } from '@/lib/server/read-source/read-console';
import { readNotice } from '@/lib/server/read-source/notice';
import { requirePerson } from '@/lib/server/session';
import { timeWindowLabel, timeWindowName } from '@holdfast/protocol/time-window';
import { FilterNotices } from '@/components/console/filter-notices';
import { ErrorGroupsTable } from '@/components/console/error-groups-table';

export const metadata: Metadata = { title: 'Errors' };
export const dynamic = 'force-dynamic';

/**
 * Failures grouped by cause, fleet-wide or for one step: what is failing, how
 * much, since when, rising or not, and the dead letters each group left.
 */
export default async function ErrorsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePerson();
  const view = parseErrorsView(await searchParams);
  const now = new Date();
  const { value: groups, source } = await readConsole((db) =>
    getErrorGroups(db, { window: view.window, now, filter: view.filter }),
  );
  const narrowed = Boolean(view.filter.agent || view.filter.step || view.filter.search);

  return (
    <>
      <PageHeader
        title="Errors"
        description={`Failures grouped by cause: one agent's step, one error class and one error pattern (the error's first line with its numbers, ids, hashes, quoted values and addresses taken out). Counted from ${groups.from.toISOString().slice(0, 16)} to ${groups.to.toISOString().slice(0, 16)} UTC (from a whole hour, or for 7 d and 30 d a whole UTC day).`}
      />
      <ReadSourceNotice notice={readNotice(source)} />
      <div className="mb-4 flex flex-wrap items-end gap-4">
        <SegmentedLinks
          label="Time window"
          links={timeWindowName.options.map((name) => ({
            href: errorsHref({ ...view, window: name }),
            label: name,
            title: timeWindowLabel[name],
            active: view.window === name,
          }))}
        />
        <Form
          key={errorsHref(view)}
          action="/errors"
          className="flex flex-wrap items-end gap-2"
          data-testid="errors-filters"
        >
          <input type="hidden" name="window" value={view.window} />
          {view.filter.agent ? <input type="hidden" name="agent" value={view.filter.agent} /> : null}
          {view.filter.step ? <input type="hidden" name="step" value={view.filter.step} /> : null}
          <Field label="Error text contains">
            <Input type="search" name="search" defaultValue={view.filter.search ?? ''} size="sm" className="w-64" />
          </Field>
          <Button type="submit" size="sm">
            Apply
          </Button>
          {narrowed ? (
            <a
              href={errorsHref({ window: view.window, filter: {} })}
              className="text-[12px] text-accent hover:underline"
            >
              Show every step
            </a>
          ) : null}
        </Form>
      </div>
      <FilterNotices notices={view.notices} />
      {view.filter.agent && view.filter.step ? (
        <p className="mb-3 text-[13px]" data-testid="errors-step-filter">
          For{' '}
          <span className="font-mono">
            {view.filter.agent}/{view.filter.step}
          </span>{' '}
          only.
        </p>
      ) : null}
      {groups.groups.length === 0 ? (
        <EmptyState title={narrowed ? 'No error group matches' : 'No failures in this window'} testId="errors-empty">
          {narrowed
            ? 'Nothing failed with these words or on this step here. Try a longer window or clear the search.'
            : 'Every attempt in this window succeeded or is still running. Try a longer window.'}
        </EmptyState>
      ) : (
        <>
          <p className="mb-2 text-[12px] text-muted" data-testid="errors-count">
            {groups.matched > groups.groups.length
              ? `The ${formatCount(groups.groups.length)} most failing of ${formatCount(groups.matched)} groups`
              : `${formatCount(groups.matched)} group${groups.matched === 1 ? '' : 's'}`}
            , most failures first. Before: the {groups.windowHours} whole hour{groups.windowHours === 1 ? '' : 's'}{' '}
            before the window.
          </p>
          <ErrorGroupsTable groups={groups.groups} now={now} windowHours={groups.windowHours} />
        </>
      )}
      <p className="mt-3 text-[12px] text-muted">
        At most {ERROR_GROUPS_SHOWN} groups are listed; search or pick a step to see others. Groups are counted per hour
        by the rollup pass; the minutes since its last pass are read from the raw log.
      </p>
    </>
  );
}
