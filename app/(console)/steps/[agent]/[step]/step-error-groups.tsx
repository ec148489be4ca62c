import Link from 'next/link';
import { ErrorGroupsTable } from '@/components/console/error-groups-table';
import { formatCount } from '@/lib/console/format';
import { errorsHref } from '@/lib/filters/errors';
import type { ErrorGroupsView } from '@/lib/queries/error-groups';
import { timeWindowLabel } from '@holdfast/protocol/time-window';

/** How many of the step's groups the page lists; the Errors page lists them all. */
export const STEP_ERROR_GROUPS_SHOWN = 5;

/**
 * The step's failures grouped by cause, most first: why it fails, not only how often. Error groups are counted
 * over the named windows only, so a custom range shows the last 24 hours' groups and says so.
 */
export function StepErrorGroups({
  names,
  groups,
  now,
  customRange,
}: {
  names: { agent: string; step: string };
  groups: ErrorGroupsView;
  now: Date;
  customRange: boolean;
}) {
  const all = errorsHref({ window: groups.window, filter: { agent: names.agent, step: names.step } });
  return (
    <section aria-labelledby="step-error-groups-title" className="mt-5" data-testid="step-error-groups">
      <div className="mb-2 flex flex-wrap items-baseline gap-3">
        <h2 id="step-error-groups-title" className="text-[13px] font-semibold">
          Failures by cause
        </h2>
        <span className="text-[12px] text-muted">
          {timeWindowLabel[groups.window]}
          {customRange ? ' (groups are counted over the named windows, not a custom range)' : ''}
        </span>
        <Link href={all} className="text-[12px] text-accent hover:underline" data-testid="step-error-groups-link">
          {groups.matched > groups.groups.length
            ? `All ${formatCount(groups.matched)} groups of this step →`
            : 'This step on the Errors page →'}
        </Link>
      </div>
      {groups.groups.length === 0 ? (
        <p className="text-[13px] text-muted" data-testid="step-error-groups-empty">
          No failures in this window.
        </p>
      ) : (
        <ErrorGroupsTable groups={groups.groups} now={now} windowHours={groups.windowHours} />
      )}
    </section>
  );
}
