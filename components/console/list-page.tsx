import Link from 'next/link';
import type { ReactNode } from 'react';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { readNotice } from '@/lib/server/read-source/notice';
import type { ReadSource } from '@/lib/server/read-source/notice';
import { FilterNotices } from './filter-notices';
import { LiveRefresh } from './live-refresh';

/**
 * The skeleton every console list page shares (holds, locks, keys, audit, dead
 * letters), in the order each reads: the title and what the list is, with
 * "Updated N s ago" where the page refreshes itself (`refreshedAt`, the
 * server's render time); where the figures were read from; what the page shows
 * above its filters (`intro`); the filters (a ListFilters) and the parameters
 * the URL asked for that were ignored; then the page's lists (ListSections).
 */
export function ListPage({
  title,
  description,
  readSource,
  refreshedAt,
  intro,
  filters,
  notices = [],
  children,
}: {
  title: string;
  description: string;
  readSource: ReadSource | undefined;
  refreshedAt?: Date;
  intro?: ReactNode;
  filters?: ReactNode;
  notices?: string[];
  children: ReactNode;
}) {
  return (
    <>
      <PageHeader
        title={title}
        description={description}
        actions={refreshedAt ? <LiveRefresh renderedAt={refreshedAt.toISOString()} /> : undefined}
      />
      <ReadSourceNotice notice={readNotice(readSource)} />
      {intro}
      {filters}
      <FilterNotices notices={notices} />
      {children}
    </>
  );
}

/**
 * A list's filters as a plain GET form: every value stays in the URL, and
 * applying them starts at the first page (the form carries no cursor).
 * `actions` sit beside the submit button; "Clear filters" shows only when
 * there is something to clear (`clearHref`).
 */
export function ListFilters({
  label,
  testId,
  submitLabel = 'Apply',
  actions,
  clearHref,
  children,
}: {
  label: string;
  testId: string;
  submitLabel?: string;
  actions?: ReactNode;
  clearHref?: string;
  children: ReactNode;
}) {
  return (
    <form method="get" className="mb-4 flex flex-wrap items-end gap-3" aria-label={label} data-testid={testId}>
      {children}
      <Button type="submit" size="md">
        {submitLabel}
      </Button>
      {actions}
      {clearHref ? (
        <Link href={clearHref} className="text-[13px] text-accent hover:underline">
          Clear filters
        </Link>
      ) : null}
    </form>
  );
}

/**
 * One list on a page: its heading (focusable, so focus can land there when an
 * action empties the list), how much of the list shows (`count`, after a dot,
 * or `note`, a line below), then its rows, or the empty state when `rowCount`
 * is 0, then its pager. `aside` sits beside the heading (a bulk action).
 */
export function ListSection({
  headingId,
  heading,
  headingTestId,
  count,
  countTestId,
  note,
  noteTestId,
  aside,
  rowCount,
  empty,
  pager,
  children,
}: {
  headingId: string;
  heading: string;
  headingTestId?: string;
  count?: ReactNode;
  countTestId?: string;
  note?: ReactNode;
  noteTestId?: string;
  aside?: ReactNode;
  rowCount: number;
  empty: { title: string; testId: string; hint?: ReactNode };
  pager?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="mb-6">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2
            id={headingId}
            tabIndex={-1}
            className="text-[15px] font-semibold focus:outline-none focus-visible:outline-2"
            data-testid={headingTestId}
          >
            {heading}
            {count === undefined ? null : (
              <>
                {' '}
                <span className="text-[13px] font-normal text-muted" data-testid={countTestId}>
                  · {count}
                </span>
              </>
            )}
          </h2>
          {note ? (
            <p className="text-[13px] text-muted" data-testid={noteTestId}>
              {note}
            </p>
          ) : null}
        </div>
        {aside}
      </div>
      {rowCount === 0 ? (
        <EmptyState title={empty.title} testId={empty.testId}>
          {empty.hint}
        </EmptyState>
      ) : (
        children
      )}
      {pager}
    </div>
  );
}
