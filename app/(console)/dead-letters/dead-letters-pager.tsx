import Link from 'next/link';
import type { DeadLetterFilter } from '@/lib/core';
import { deadLettersHref } from '@/lib/console/filter-forms/dead-letters';

const linkClass = 'rounded border border-line px-3 py-1 text-[13px] hover:border-accent';
const absentClass = 'rounded border border-line px-3 py-1 text-[13px] text-muted opacity-60';

/**
 * Previous and Next over the list, each a link that keeps the filter and names
 * the dead letter the page starts after (or ends before): a link reproduces the page.
 */
export function DeadLettersPager({
  filter,
  firstId,
  lastId,
  hasPrevious,
  hasNext,
}: {
  filter: DeadLetterFilter;
  firstId?: number;
  lastId?: number;
  hasPrevious: boolean;
  hasNext: boolean;
}) {
  if (!hasPrevious && !hasNext) return null;
  return (
    <nav aria-label="Pages of dead letters" className="mt-3 flex flex-wrap items-center gap-2">
      {hasPrevious && firstId !== undefined ? (
        <Link
          href={deadLettersHref(filter, { before: firstId })}
          className={linkClass}
          rel="prev"
          data-testid="dead-letters-previous"
        >
          ← Previous
        </Link>
      ) : (
        <span className={absentClass} aria-disabled="true">
          ← Previous
        </span>
      )}
      {hasNext && lastId !== undefined ? (
        <Link
          href={deadLettersHref(filter, { after: lastId })}
          className={linkClass}
          rel="next"
          data-testid="dead-letters-next"
        >
          Next →
        </Link>
      ) : (
        <span className={absentClass} aria-disabled="true">
          Next →
        </span>
      )}
      {hasPrevious ? (
        <Link href={deadLettersHref(filter)} className="text-[13px] text-accent hover:underline">
          First page
        </Link>
      ) : null}
    </nav>
  );
}
