'use client';

import { useQuery } from '@tanstack/react-query';
import { EmptyState } from '@/components/ui/empty-state';
import { timeWindowLabel, type TimeWindowName } from '@/lib/time-window';
import { StepStatsTable } from './step-stats-table';
import { STEP_STATS_REFRESH_MS, stepStatsQuery } from './step-stats-query';

/** The Overview's per-step table, refreshed every few seconds. */
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

  const { steps, anomalies } = query.data;
  return (
    <section aria-label="Step figures" className="flex flex-col gap-4">
      {/* How fresh the figures are is said once, at the top of the page (OverviewFreshness). */}
      <div className="text-[12px] text-muted">{timeWindowLabel[window]}</div>
      {steps.length === 0 ? (
        <EmptyState title="No attempts in this window" testId="step-stats-empty">
          Agents report each execution of a step with <code>recordAttempt</code>; figures appear here as soon as the
          first one arrives. Try a longer window.
        </EmptyState>
      ) : (
        <StepStatsTable steps={steps} anomalies={anomalies} window={window} />
      )}
    </section>
  );
}
