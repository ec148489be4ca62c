import { Pager } from '@/components/ui/pager';
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
  const paged = pages > 1;
  return (
    <Pager
      previousHref={paged && page > 1 ? hrefFor(page - 1) : undefined}
      nextHref={paged && page < pages ? hrefFor(page + 1) : undefined}
      showing={`Showing ${formatCount(start)}–${formatCount(end)} of ${formatCount(total)} steps`}
      label="Pages of steps"
      testId="steps-pager"
    />
  );
}
