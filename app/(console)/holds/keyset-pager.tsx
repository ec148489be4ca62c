import Link from 'next/link';
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
  const link = 'rounded border border-line px-3 py-1 text-[13px] hover:border-accent';
  const off = 'rounded border border-line px-3 py-1 text-[13px] text-muted opacity-60';
  return (
    <nav aria-label={label} className="mt-3 flex flex-wrap items-center gap-2" data-testid={testId}>
      {page.previous ? (
        <Link href={hrefFor('before', encodeKeysetCursor(page.previous))} className={link} rel="prev">
          ← Previous
        </Link>
      ) : (
        <span className={off} aria-disabled="true">
          ← Previous
        </span>
      )}
      {page.next ? (
        <Link href={hrefFor('after', encodeKeysetCursor(page.next))} className={link} rel="next">
          Next →
        </Link>
      ) : (
        <span className={off} aria-disabled="true">
          Next →
        </span>
      )}
      <span className="text-[12px] text-muted">{showingText(page)}</span>
    </nav>
  );
}
