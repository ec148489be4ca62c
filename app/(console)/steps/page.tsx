import type { Metadata } from 'next';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { ownersOf } from '@holdfast/engine/core';
import { parseStepsView } from '@/lib/filters/steps';
import { stepsExportHref } from '@/lib/console/filter-forms/steps';
import { formatCount } from '@/lib/console/format';
import { inOneSnapshot } from '@/lib/queries/one-snapshot';
import { getStepsPage } from '@/lib/queries/steps-page';
import { stepColumns } from '@/lib/console/step-columns';
import { previousRangeOf, rangeLength } from '@holdfast/protocol/time-window';
import { FilterNotices } from '@/components/console/filter-notices';
import { PausesNotice } from '@/components/console/pauses-notice';
import { BACKLOG_MINUTES, currentPausesSummary } from '@/lib/queries/pauses';
import { DataSpanNote } from '@/components/console/data-span-note';
import { readDataBegins } from '@/lib/queries/data-span';
import { StepsTable } from './steps-table';
import { StepsSubtotalLine } from './steps-subtotal';
import { StepsFilters } from './steps-filters';
import { StepsPager } from './steps-pager';

export const metadata: Metadata = { title: 'Steps' };
export const dynamic = 'force-dynamic';

export default async function StepsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const params = await searchParams;
  const view = parseStepsView(params, new Date());
  const now = new Date();
  // One source for the page's reads; a replica that fails mid-read is read again on the primary.
  const {
    value: [shown, pauses, dataBegins],
  } = await readConsole((db) =>
    // One snapshot: a step's failures and their classes are read apart, and must agree while agents write.
    inOneSnapshot(db, (snapshot) =>
      Promise.all([
        getStepsPage(snapshot, view, params.page, now, ownersOf(person)),
        currentPausesSummary(snapshot, now),
        readDataBegins(snapshot),
      ]),
    ),
  );

  const previous = previousRangeOf(view.range);
  const minute = (moment: Date) => moment.toISOString().slice(0, 16).replace('T', ' ');
  return (
    <>
      <PageHeader
        title="Steps"
        description={`Every step's retries, spend and latency from ${minute(view.range.from)} to ${minute(view.range.to)} UTC, each change against the ${rangeLength(view.range)} before (from ${minute(previous.from)}).`}
      />
      <PausesNotice {...pauses} backlogMinutes={BACKLOG_MINUTES} />
      <StepsFilters view={view} agents={shown.agents} owners={shown.ownerChoices} />
      <FilterNotices notices={view.notices} />
      <DataSpanNote range={view.range} dataBegins={dataBegins} />
      {shown.steps.length === 0 ? (
        <EmptyState title="No steps match" testId="steps-empty">
          No attempts in this window
          {view.agent || view.search || view.source || view.cost || view.owner ? ' for these filters' : ''}. Try a
          longer window or clear the filters.
        </EmptyState>
      ) : (
        <>
          <StepsSubtotalLine subtotal={shown.subtotal} view={view} />
          {/* The page's rows, with their causes, anomalies, pools, sources, costing and owners. */}
          <StepsTable {...shown} view={view} />
          <div className="mt-2 flex flex-wrap items-center justify-between gap-2">
            <StepsPager view={view} page={shown.page} total={shown.total} />
            <a
              href={stepsExportHref(view)}
              download
              className="text-[13px] text-accent underline"
              data-testid="steps-export"
            >
              Export {formatCount(shown.total)} step{shown.total === 1 ? '' : 's'} as CSV
            </a>
          </div>
        </>
      )}
      <details className="mt-4 text-[12px] text-muted">
        <summary className="cursor-pointer">What the columns mean</summary>
        <dl className="mt-2 grid grid-cols-[10rem_1fr] gap-x-3 gap-y-1">
          {stepColumns.map((column) => (
            <div key={column.key} className="contents">
              <dt className="font-medium text-ink">{column.label}</dt>
              <dd>{column.help}</dd>
            </div>
          ))}
          <div className="contents">
            <dt className="font-medium text-ink">change (under a figure)</dt>
            <dd>
              The figure against the same figure over the previous window of equal length (for a custom range, the range
              of the same length just before it): counts and spend as a signed percentage of the previous figure, rates
              in percentage points (pp). &quot;new&quot; under a figure means the previous window had none of it;
              &quot;new&quot; beside a step means the step had no attempts then, so nothing is compared.
              &quot;worse&quot; and &quot;better&quot; say which way it went for retries, failures and their spend;
              attempts and spend are volume, neither. Retry spend also shows the change in dollars, and &quot;by
              change&quot; under its header sorts by that.
            </dd>
          </div>
          <div className="contents">
            <dt className="font-medium text-ink">by cause (retry spend)</dt>
            <dd>
              Retry spend (each retry&apos;s share of it) split by what came just before each retry in its execution:
              the error class of the failed attempt before it (attempt 3 is counted under attempt 2&apos;s class),
              &quot;after a success&quot; for a step run again after it succeeded, &quot;while one ran&quot; for a
              second copy started while the first still ran. It counts the executions whose first attempt started in the
              window&apos;s hours (from {minute(shown.retryCauses.executionsBegun.from)} UTC), with all their retries,
              as of the last rollup pass (up to a minute behind); Retry spend counts the retries that started in the
              window, so the two differ by executions that straddle the window&apos;s edges. Kept as long as the raw
              attempts.
              {shown.retryCauses.available
                ? ''
                : ' Not yet available: the rollup pass fills it on its first run after an upgrade.'}
            </dd>
          </div>
          <div className="contents">
            <dt className="font-medium text-ink">retry share up</dt>
            <dd>
              The last 24 hours&apos; retry share of spend is more than 3 scaled median absolute deviations, and at
              least 10 points, above the median of the step&apos;s previous 7 days (needs 20 attempts and 4 days of
              history).
            </dd>
          </div>
          <div className="contents">
            <dt className="font-medium text-ink">owner (under the agent)</dt>
            <dd>
              Who answers for the step: the owner an admin named for the step or its agent (Settings, Owners, or the
              step&apos;s page), else the owner its agent declares (the owner of its newest task). &quot;declared&quot;
              marks one nobody has confirmed; a traced agent that never began a step declares none.
            </dd>
          </div>
          <div className="contents">
            <dt className="font-medium text-ink">library, HTTP, traces</dt>
            <dd>
              How the step&apos;s attempts reached Holdfast: the library in the agent&apos;s process, the HTTP API (the
              step protocol or a client), or OpenTelemetry spans. Spans show what happened; holds, keys, budgets and
              retry pools need the library, the step protocol or a client.
            </dd>
          </div>
          <div className="contents">
            <dt className="font-medium text-ink">retry pool: N left / refused R</dt>
            <dd>
              The step is covered by a fleet retry pool (see the Retry pools page): N retries may still be granted now
              by the pool that would refuse first, and R of this step&apos;s retries were refused in this window
              (refusals are kept for 24 hours).
            </dd>
          </div>
        </dl>
      </details>
    </>
  );
}
