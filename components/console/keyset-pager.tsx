import { Pager } from '@/components/console/pager';
import { formatCount } from '@/lib/console/format';
import { encodeKeysetCursor, type KeysetCursor } from '@/lib/console/filters/keyset-cursor';

/** Where a page sits in its list, and the cursors to its neighbours (lib/queries/keyset's KeysetPage, read structurally). */
export interface PageSpan {
  start: number;
  end: number;
  total: number;
  previous?: KeysetCursor;
  next?: KeysetCursor;
}

/** "Showing A–B of N" for a list's heading line. */
export function showingText(page: PageSpan, noun?: string): string {
  if (page.total === 0) return `None${noun ? ` ${noun}` : ''}`;
  return `Showing ${formatCount(page.start)}–${formatCount(page.end)} of ${formatCount(page.total)}${noun ? ` ${noun}` : ''}`;
}

/**
 * Previous and Next for a keyset-paged list. `hrefFor` writes the list's URL
 * with its filters and the page beside a cursor (`after` or `before` it).
 */
export function KeysetPager({
  page,
  hrefFor,
  label,
  testId,
}: {
  page: PageSpan;
  hrefFor: (side: 'after' | 'before', cursor: string) => string;
  label: string;
  testId?: string;
}) {
  if (!page.previous && !page.next) return null;
  return (
    <Pager
      previousHref={page.previous ? hrefFor('before', encodeKeysetCursor(page.previous)) : undefined}
      nextHref={page.next ? hrefFor('after', encodeKeysetCursor(page.next)) : undefined}
      showing={showingText(page)}
      label={label}
      testId={testId}
    />
  );
}
