import { queryOptions } from '@tanstack/react-query';
import type { ConsoleOverview } from '@/lib/console/overview';
import { decodeReadSource, READ_SOURCE_HEADER, type ReadSource } from '@/lib/server/read-source/notice';
import type { TimeWindowName } from '@holdfast/protocol/time-window';
import { STEP_STATS_REFRESH_MS } from './step-stats-query';

export const overviewQueryKey = (window: TimeWindowName) => ['overview', window] as const;

/** The figures, and where the server read them (a replica, and how far behind, or the primary and why). */
export type OverviewData = ConsoleOverview & { readSource?: ReadSource };

export async function fetchOverview(window: TimeWindowName): Promise<OverviewData> {
  const response = await fetch(`/api/console/overview?window=${encodeURIComponent(window)}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`The server answered ${response.status} while refreshing the overview`);
  const figures = (await response.json()) as ConsoleOverview;
  return { ...figures, readSource: decodeReadSource(response.headers.get(READ_SOURCE_HEADER)) };
}

/** The headline figures' polling, shared by every island that reads them (one request, one cache entry). */
export const overviewQuery = (window: TimeWindowName) =>
  queryOptions({
    queryKey: overviewQueryKey(window),
    queryFn: () => fetchOverview(window),
    refetchInterval: STEP_STATS_REFRESH_MS,
  });
