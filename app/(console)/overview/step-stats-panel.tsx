'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';
import { formatCount } from '@/lib/console/format';
import { timeWindowLabel, type TimeWindowName } from '@holdfast/protocol/time-window';
import { StepStatsTable } from './step-stats-table';
import { STEP_STATS_REFRESH_MS, stepStatsQuery } from './step-stats-query';

/** The Overview's top steps by retry spend (and flagged steps outside them), refreshed every few seconds. */
export function StepStatsPanel({ window }: { window: TimeWindowName }) {
  const query = useQuery(stepStatsQuery(window));

  if (query.isPending) {
    return (
      <p role="status" className="text-[13px] text-muted">
        Loading step figures…
      </p>
    );
  }
  if (query.isError && !query.data) {
    return (
      <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-[13px] text-danger">
        Could not load step figures: {query.error.message}. Retrying every {STEP_STATS_REFRESH_MS / 1000} s.
      </p>
    );
  }

  const { steps, flaggedElsewhere, stepCount, anomalies } = query.data;
  const allShown = steps.length === stepCount;
  return (
    <section aria-label="Step figures" className="flex flex-col gap-4">
      {/* How fresh the figures are is said once, at the top of the page (OverviewFreshness). */}
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 text-[12px] text-muted">
        <span data-testid="step-stats-scope">
          {timeWindowLabel[window]} ·{' '}
          {allShown
            ? `${stepCount === 1 ? 'the one step' : `all ${formatCount(stepCount)} steps`}, most retry spend first`
            : `top ${formatCount(steps.length)} of ${formatCount(stepCount)} steps by retry spend`}
        </span>
        {stepCount > 0 ? (
          <Link href={`/steps?window=${window}`} className="text-accent hover:underline" data-testid="all-steps-link">
            {allShown ? 'Sort and filter on the Steps page' : `All ${formatCount(stepCount)} steps on the Steps page`}
          </Link>
        ) : null}
      </div>
      {steps.length === 0 ? (
        <EmptyState title="No attempts in this window" testId="step-stats-empty">
          Agents report each execution of a step with <code>recordAttempt</code>; figures appear here as soon as the
          first one arrives. Try a longer window.
        </EmptyState>
      ) : (
        <StepStatsTable steps={steps} anomalies={anomalies} window={window} testId="step-stats-table" />
      )}
      {flaggedElsewhere.length > 0 ? (
        <div className="flex flex-col gap-2">
          <h2 className="text-[12px] font-medium text-muted">Flagged, outside the top {formatCount(steps.length)}</h2>
          <StepStatsTable
            steps={flaggedElsewhere}
            anomalies={anomalies}
            window={window}
            testId="step-stats-flagged-table"
          />
        </div>
      ) : null}
    </section>
  );
}
