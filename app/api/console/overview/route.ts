import { z } from 'zod';
import { getConsoleOverview } from '@/lib/console/overview';
import { consoleEndpoint } from '@/lib/server/console-endpoint';
import { DEFAULT_TIME_WINDOW, timeWindowName } from '@/lib/time-window';

export const dynamic = 'force-dynamic';

const overviewParams = z.strictObject({ window: timeWindowName.default(DEFAULT_TIME_WINDOW) });

/** What the Overview's headline and charts poll. */
export const GET = consoleEndpoint({ query: overviewParams }, ({ db, query }) =>
  getConsoleOverview(db, query.window, new Date()),
);
