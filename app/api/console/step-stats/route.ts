import { z } from 'zod';
import { getTopStepsView } from '@/lib/queries/top-steps';
import { consoleEndpoint } from '@/lib/server/console-endpoint';
import { DEFAULT_TIME_WINDOW, timeWindowName } from '@holdfast/protocol/time-window';
import { inOneSnapshot } from '@/lib/queries/one-snapshot';

export const dynamic = 'force-dynamic';

const stepStatsParams = z.strictObject({ window: timeWindowName.default(DEFAULT_TIME_WINDOW) });

/** What the Overview polls: the top steps' retry figures for one window (GET /api/v1/step-stats has every step). */
export const GET = consoleEndpoint({ query: stepStatsParams }, ({ db, query }) =>
  inOneSnapshot(db, (snapshot) => getTopStepsView(snapshot, query.window, new Date())),
);
