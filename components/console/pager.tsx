import Link from 'next/link';

const linkClass = 'rounded border border-line px-3 py-1 text-[13px] hover:border-accent';
const offClass = 'rounded border border-line px-3 py-1 text-[13px] text-muted opacity-60';

/**
 * Previous and Next for a paged list, and "First page" once past it, beside
 * the list's "Showing A–B of N" line. Without Previous or Next (a single page) only the
 * line shows. The list decides what a page is (a keyset cursor, a page number)
 * and passes the links. With `testId`, the links are `<testId>-previous`,
 * `<testId>-next` and `<testId>-first`.
 */
export function Pager({
  previousHref,
  nextHref,
  firstHref,
  showing,
  label,
  testId,
}: {
  previousHref?: string;
  nextHref?: string;
  firstHref?: string;
  showing: string;
  label: string;
  testId?: string;
}) {
  const linkTestId = (name: string) => (testId ? `${testId}-${name}` : undefined);
  return (
    <nav aria-label={label} className="mt-3 flex flex-wrap items-center gap-2" data-testid={testId}>
      {previousHref || nextHref ? (
        <>
          {previousHref ? (
            <Link href={previousHref} className={linkClass} rel="prev" data-testid={linkTestId('previous')}>
              ← Previous
            </Link>
          ) : (
            <span className={offClass} aria-disabled="true">
              ← Previous
            </span>
          )}
          {nextHref ? (
            <Link href={nextHref} className={linkClass} rel="next" data-testid={linkTestId('next')}>
              Next →
            </Link>
          ) : (
            <span className={offClass} aria-disabled="true">
              Next →
            </span>
          )}
        </>
      ) : null}
      {firstHref ? (
        <Link href={firstHref} className="text-[13px] text-accent hover:underline" data-testid={linkTestId('first')}>
          First page
        </Link>
      ) : null}
      <span className="text-[12px] text-muted">{showing}</span>
    </nav>
  );
}
