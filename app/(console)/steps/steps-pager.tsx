import Link from 'next/link';
import { formatCount } from '@/lib/console/format';
import { stepsViewHref, type StepsView } from '@/lib/console/filters/steps';

/**
 * Steps shown on one page. Every step's figures are still read (a sort needs
 * them all); only the rows rendered are limited, since rendering a table of
 * thousands of steps cost seconds and megabytes of HTML per request.
 */
export const STEPS_PAGE_SIZE = 50;

/** The page asked for in `?page=`, kept within the pages there are (a bad value means the first). */
export function readStepsPage(raw: string | string[] | undefined, total: number): number {
  const pages = Math.max(1, Math.ceil(total / STEPS_PAGE_SIZE));
  const asked = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isInteger(asked) && asked >= 1 ? Math.min(asked, pages) : 1;
}

/** "Showing A–B of N steps" with Previous and Next, keeping the view's window, filters and sort. */
export function StepsPager({ view, page, total }: { view: StepsView; page: number; total: number }) {
  const pages = Math.ceil(total / STEPS_PAGE_SIZE);
  const start = (page - 1) * STEPS_PAGE_SIZE + 1;
  const end = Math.min(total, page * STEPS_PAGE_SIZE);
  const hrefFor = (target: number) => stepsViewHref(view, { page: target > 1 ? String(target) : undefined });
  const link = 'rounded border border-line px-3 py-1 text-[13px] hover:border-accent';
  const off = 'rounded border border-line px-3 py-1 text-[13px] text-muted opacity-60';
  return (
    <nav aria-label="Pages of steps" className="mt-3 flex flex-wrap items-center gap-2" data-testid="steps-pager">
      {pages > 1 ? (
        <>
          {page > 1 ? (
            <Link href={hrefFor(page - 1)} className={link} rel="prev">
              ← Previous
            </Link>
          ) : (
            <span className={off} aria-disabled="true">
              ← Previous
            </span>
          )}
          {page < pages ? (
            <Link href={hrefFor(page + 1)} className={link} rel="next">
              Next →
            </Link>
          ) : (
            <span className={off} aria-disabled="true">
              Next →
            </span>
          )}
        </>
      ) : null}
      <span className="text-[12px] text-muted">
        Showing {formatCount(start)}–{formatCount(end)} of {formatCount(total)} steps
      </span>
    </nav>
  );
}
