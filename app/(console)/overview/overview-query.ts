import type { ConsoleOverview } from '@/lib/console/overview';
import type { TimeWindowName } from '@/lib/time-window';

export const overviewQueryKey = (window: TimeWindowName) => ['overview', window] as const;

export async function fetchOverview(window: TimeWindowName): Promise<ConsoleOverview> {
  const response = await fetch(`/api/console/overview?window=${encodeURIComponent(window)}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`The server answered ${response.status} while refreshing the overview`);
  return (await response.json()) as ConsoleOverview;
}
