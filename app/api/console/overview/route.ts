import { z } from 'zod';
import { getConsoleOverview } from '@/lib/console/overview';
import { consoleEndpoint } from '@/lib/server/console-endpoint';
import { DEFAULT_TIME_WINDOW, timeWindowName } from '@holdfast/protocol/time-window';
import { inOneSnapshot } from '@/lib/queries/one-snapshot';

export const dynamic = 'force-dynamic';

const overviewParams = z.strictObject({ window: timeWindowName.default(DEFAULT_TIME_WINDOW) });

/** What the Overview's headline and charts poll. */
export const GET = consoleEndpoint({ query: overviewParams }, ({ db, query }) =>
  inOneSnapshot(db, (snapshot) => getConsoleOverview(snapshot, query.window, new Date())),
);
