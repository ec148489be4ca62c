import { z } from 'zod';
import { getStepStatsView } from '@/lib/queries/step-stats';
import { consoleEndpoint } from '@/lib/server/console-endpoint';
import { DEFAULT_TIME_WINDOW, timeWindowName } from '@/lib/time-window';

export const dynamic = 'force-dynamic';

const stepStatsParams = z.strictObject({ window: timeWindowName.default(DEFAULT_TIME_WINDOW) });

/** What the Overview polls: per-step retry figures for one window. */
export const GET = consoleEndpoint({ query: stepStatsParams }, ({ db, query }) =>
  getStepStatsView(db, query.window, new Date()),
);
