'use client';

import { useQuery } from '@tanstack/react-query';
import { OverviewCharts } from '@/components/charts/overview-charts';
import { DataSpanNote } from '@/components/console/data-span-note';
import { eventMarks, StepEvents } from '@/components/console/chart-events';
import { formatCount } from '@/lib/console/format';
import type { TimeWindowName } from '@holdfast/protocol/time-window';
import { HeadlineTiles } from './headline-tiles';
import { overviewQuery } from './overview-query';
import { TopMovers } from './top-movers';

/** The Overview's headline figures (each against the previous window), its charts and its top movers. */
export function OverviewFigures({ window }: { window: TimeWindowName }) {
  const query = useQuery(overviewQuery(window));
  if (!query.data) {
    return query.isError ? (
      <p role="alert" className="text-[13px] text-danger">
        Could not load the headline figures: {query.error.message}
      </p>
    ) : (
      <p role="status" className="text-[13px] text-muted">
        Loading headline figures…
      </p>
    );
  }
  const view = query.data;
  return (
    <section aria-label="Headline figures" className="mb-5 flex flex-col gap-3">
      <DataSpanNote
        range={{ from: new Date(view.range.from), to: new Date(view.range.to) }}
        dataBegins={view.dataBegins === null ? null : new Date(view.dataBegins)}
      />
      <HeadlineTiles view={view} />
      {view.sideEffects ? (
        <div className="rounded-lg border border-line bg-surface p-3" data-testid="side-effects">
          <h2 className="mb-2 text-[12px] font-medium text-muted">
            Side effects of the demo fleet, all time: what the downstreams really did
          </h2>
          <dl className="flex flex-wrap gap-x-8 gap-y-2 text-[13px]">
            {[
              ['Duplicate deliveries absorbed', view.sideEffects.duplicatesAbsorbed, 'side-effects-absorbed'],
              ['Emails sent', view.sideEffects.emailsSent, 'side-effects-emails'],
              ['Payments charged', view.sideEffects.paymentsCharged, 'side-effects-payments'],
              ['Pages published', view.sideEffects.pagesPublished, 'side-effects-pages'],
              ['Tasks with a side effect done twice', view.sideEffects.tasksWithDuplicateEffects, 'side-effects-twice'],
            ].map(([label, value, testId]) => (
              <div key={String(testId)} data-testid={String(testId)}>
                <dt className="text-[12px] text-muted">{label}</dt>
                <dd className="text-lg font-semibold tabular-nums">{formatCount(Number(value))}</dd>
              </div>
            ))}
          </dl>
        </div>
      ) : null}
      <OverviewCharts view={view} marks={eventMarks(view.events, view.unit)} />
      <StepEvents events={view.events} fleet />
      <TopMovers view={view} window={window} />
    </section>
  );
}
