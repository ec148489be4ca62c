import Link from 'next/link';

const linkClass = 'rounded border border-line px-3 py-1 text-[13px] hover:border-accent';
const offClass = 'rounded border border-line px-3 py-1 text-[13px] text-muted opacity-60';

/**
 * Previous and Next for a paged list, beside its "Showing A–B of N" line.
 * Without either link (a single page) only the line shows. The list decides
 * what a page is (a keyset cursor, a page number) and passes the links.
 */
export function Pager({
  previousHref,
  nextHref,
  showing,
  label,
  testId,
}: {
  previousHref?: string;
  nextHref?: string;
  showing: string;
  label: string;
  testId?: string;
}) {
  return (
    <nav aria-label={label} className="mt-3 flex flex-wrap items-center gap-2" data-testid={testId}>
      {previousHref || nextHref ? (
        <>
          {previousHref ? (
            <Link href={previousHref} className={linkClass} rel="prev">
              ← Previous
            </Link>
          ) : (
            <span className={offClass} aria-disabled="true">
              ← Previous
            </span>
          )}
          {nextHref ? (
            <Link href={nextHref} className={linkClass} rel="next">
              Next →
            </Link>
          ) : (
            <span className={offClass} aria-disabled="true">
              Next →
            </span>
          )}
        </>
      ) : null}
      <span className="text-[12px] text-muted">{showing}</span>
    </nav>
  );
}
