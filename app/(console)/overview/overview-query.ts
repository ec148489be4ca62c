import { queryOptions } from '@tanstack/react-query';
import type { ConsoleOverview } from '@/lib/console/overview';
import type { TimeWindowName } from '@/lib/time-window';
import { STEP_STATS_REFRESH_MS } from './step-stats-query';

export const overviewQueryKey = (window: TimeWindowName) => ['overview', window] as const;

export async function fetchOverview(window: TimeWindowName): Promise<ConsoleOverview> {
  const response = await fetch(`/api/console/overview?window=${encodeURIComponent(window)}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`The server answered ${response.status} while refreshing the overview`);
  return (await response.json()) as ConsoleOverview;
}

/** The headline figures' polling, shared by every island that reads them (one request, one cache entry). */
export const overviewQuery = (window: TimeWindowName) =>
  queryOptions({
    queryKey: overviewQueryKey(window),
    queryFn: () => fetchOverview(window),
    refetchInterval: STEP_STATS_REFRESH_MS,
  });
