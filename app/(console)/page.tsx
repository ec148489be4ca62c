import { dehydrate, HydrationBoundary, QueryClient } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { PausesNotice } from '@/components/console/pauses-notice';
import { PoolRefusalsCard } from '@/components/retry-pools/pool-refusals-card';
import { BudgetsNearLimit } from '@/components/budgets/budgets-near-limit';
import { getSpendBudgets } from '@/lib/queries/spend-budgets';
import { PageHeader } from '@/components/ui/page-header';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { getConsoleOverview } from '@/lib/console/overview';
import { BACKLOG_MINUTES, currentPausesSummary } from '@/lib/queries/pauses';
import { listRetryPools } from '@/lib/queries/retry-pools';
import { getTopStepsView } from '@/lib/queries/top-steps';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import {
  DEFAULT_TIME_WINDOW,
  timeWindowLabel,
  timeWindowName,
  type TimeWindowName,
} from '@holdfast/protocol/time-window';
import { listFiringAlerts } from '@/lib/queries/attention';
import { getErrorGroups } from '@/lib/queries/error-groups';
import { inOneSnapshot } from '@/lib/queries/one-snapshot';
import { risingGroups, withRiseOnsets } from '@/lib/queries/rising-groups';
import { IncidentPanel } from './overview/incident-panel';
import { OverviewFigures } from './overview/overview-figures';
import { OverviewFreshness } from './overview/overview-freshness';
import { type OverviewData, overviewQueryKey } from './overview/overview-query';
import { OverviewReadSource } from './overview/overview-read-source';
import { StepStatsPanel } from './overview/step-stats-panel';
import { stepStatsQueryKey } from './overview/step-stats-query';

export const metadata: Metadata = { title: 'Overview' };
/** Firing alerts the incident panel names; the rest are a link away. */
const FIRING_SHOWN = 5;
export const dynamic = 'force-dynamic';

export default async function OverviewPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePerson();
  const requested = (await searchParams).window;
  const parsed = timeWindowName.safeParse(requested);
  const window: TimeWindowName = parsed.success ? parsed.data : DEFAULT_TIME_WINDOW;
  const unknownWindow = requested !== undefined && !parsed.success;

  const queryClient = new QueryClient();
  const now = new Date();
  // Read together from one source (the replica when current enough); the retry pools are shown as rendered,
  // the figures and step stats fill the islands' caches, which then poll.
  const {
    value: [retryPools, stepStats, overview, pauses, firing, rising, budgets],
    source,
  } = await readConsole((db) =>
    // One snapshot: the tiles, the step table and the incident panel agree with each other while agents write.
    inOneSnapshot(db, (snapshot) =>
      Promise.all([
        listRetryPools(snapshot, now),
        getTopStepsView(snapshot, window, now),
        getConsoleOverview(snapshot, window, now),
        currentPausesSummary(snapshot, now),
        listFiringAlerts(snapshot, FIRING_SHOWN, now),
        getErrorGroups(snapshot, { window: '1h', now }).then(async (groups) =>
          withRiseOnsets(snapshot, groups, risingGroups(groups.groups)),
        ),
        getSpendBudgets(snapshot, now),
      ]),
    ),
  );
  queryClient.setQueryData(stepStatsQueryKey(window), stepStats);
  queryClient.setQueryData<OverviewData>(overviewQueryKey(window), { ...overview, readSource: source });

  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <PageHeader
        title="Overview"
        description="How often each step repeats its work, and what the repeats cost."
        actions={
          <>
            <OverviewFreshness window={window} />
            <SegmentedLinks
              label="Time window"
              links={timeWindowName.options.map((name) => ({
                href: `/?window=${name}`,
                label: name,
                title: timeWindowLabel[name],
                active: name === window,
              }))}
            />
          </>
        }
      />
      <OverviewReadSource window={window} />
      {unknownWindow ? (
        <p role="status" className="mb-4 rounded-md bg-warn-soft px-3 py-2 text-[13px] text-warn">
          Unknown time window “{String(requested)}”: showing {timeWindowLabel[window].toLowerCase()}. Choose one of{' '}
          {timeWindowName.options.join(', ')}.
        </p>
      ) : null}
      <IncidentPanel
        alerts={firing.alerts}
        firingTotal={firing.total}
        unattended={firing.unattended}
        silenced={firing.silenced}
        rising={rising}
        now={now}
      />
      <PausesNotice {...pauses} backlogMinutes={BACKLOG_MINUTES} />
      <OverviewFigures window={window} />
      <PoolRefusalsCard pools={retryPools} />
      <BudgetsNearLimit budgets={budgets} />
      <StepStatsPanel window={window} />
    </HydrationBoundary>
  );
}
