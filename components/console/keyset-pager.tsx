import { Pager } from '@/components/console/pager';
import { formatCount } from '@/lib/console/format';
import { encodeKeysetCursor, type KeysetCursor } from '@/lib/filters/keyset-cursor';

/**
 * Where a page sits in its list, and the cursors to its neighbours
 * (lib/queries/keyset's KeysetPage, read structurally). A list whose cursor
 * is a row's id alone (dead letters) passes the id as text.
 */
export interface PageSpan {
  start: number;
  end: number;
  total: number;
  previous?: KeysetCursor | string;
  next?: KeysetCursor | string;
}

/** Which side of a cursor a page lies, as the URL carries it (`after=` or `before=`). */
export interface PagePosition {
  side: 'after' | 'before';
  cursor: string;
}

/** "Showing A–B of N" for a list's heading line. */
export function showingText(page: PageSpan, noun?: string): string {
  if (page.total === 0) return `None${noun ? ` ${noun}` : ''}`;
  return `Showing ${formatCount(page.start)}–${formatCount(page.end)} of ${formatCount(page.total)}${noun ? ` ${noun}` : ''}`;
}

const cursorText = (cursor: KeysetCursor | string) =>
  typeof cursor === 'string' ? cursor : encodeKeysetCursor(cursor);

/**
 * Previous, Next and First page for a keyset-paged list. `hrefFor` writes the
 * list's URL with its filters, at the page beside a cursor or (no position) at
 * the first page. With `testId`, the links are `<testId>-previous`, `-next`, `-first`.
 */
export function KeysetPager({
  page,
  hrefFor,
  label,
  testId,
}: {
  page: PageSpan;
  hrefFor: (position?: PagePosition) => string;
  label: string;
  testId?: string;
}) {
  if (!page.previous && !page.next) return null;
  return (
    <Pager
      previousHref={page.previous ? hrefFor({ side: 'before', cursor: cursorText(page.previous) }) : undefined}
      nextHref={page.next ? hrefFor({ side: 'after', cursor: cursorText(page.next) }) : undefined}
      firstHref={page.previous ? hrefFor() : undefined}
      showing={showingText(page)}
      label={label}
      testId={testId}
    />
  );
}
