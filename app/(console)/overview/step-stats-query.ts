import { queryOptions } from '@tanstack/react-query';
import type { TopStepsView } from '@/lib/queries/top-steps';
import type { TimeWindowName } from '@holdfast/protocol/time-window';

/** Shared by the server prefetch and the browser's polling, so both fill the same cache entry. */
export const stepStatsQueryKey = (window: TimeWindowName) => ['step-stats', window] as const;

export const STEP_STATS_REFRESH_MS = 10_000;

export async function fetchStepStats(window: TimeWindowName): Promise<TopStepsView> {
  const response = await fetch(`/api/console/step-stats?window=${encodeURIComponent(window)}`, {
    cache: 'no-store',
  });
  if (!response.ok) {
    throw new Error(`The server answered ${response.status} while refreshing step figures`);
  }
  return (await response.json()) as TopStepsView;
}

/** The step table's polling, shared by every island that reads it. */
export const stepStatsQuery = (window: TimeWindowName) =>
  queryOptions({
    queryKey: stepStatsQueryKey(window),
    queryFn: () => fetchStepStats(window),
    refetchInterval: STEP_STATS_REFRESH_MS,
  });
