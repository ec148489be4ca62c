import { Pager } from '@/components/console/pager';
import { formatCount } from '@/lib/console/format';
import { STEPS_PAGE_SIZE, type StepsView } from '@/lib/filters/steps';
import { stepsViewHref } from '@/lib/console/filter-forms/steps';

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
