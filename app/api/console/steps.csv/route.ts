import { z } from 'zod';
import { stepsCsv } from '@/lib/console/steps-csv';
import { parseStepsView, stepsFilter } from '@/lib/filters/steps';
import { inOneSnapshot } from '@/lib/queries/one-snapshot';
import { readStepsExport } from '@/lib/queries/steps-page';
import { consoleEndpoint } from '@/lib/server/console-endpoint';
import { problemResponse } from '@/lib/server/problem';
import { ownersOf } from '@holdfast/engine/core';

export const dynamic = 'force-dynamic';

/** Steps exported at most; a fleet with more narrows the view by agent or search first. */
const STEPS_EXPORT_CAP = 5_000;

/** The Steps page's parameters, strictly: a bad one is a 400 naming it (the page falls back, an export must not). */
const stepsExportQuery = stepsFilter.extend({ from: z.string().optional(), to: z.string().optional() }).strict();

/**
 * The Steps page's current view (window, agent, owner, source, search, sort) as CSV: every matching step, not only the
 * page shown, with its failures by class, failed spend, latency percentiles, the previous window's figures and retry
 * spend by cause, read in one snapshot.
 */
export const GET = consoleEndpoint({ query: stepsExportQuery }, async ({ db, request, person }) => {
  const now = new Date();
  const view = parseStepsView(Object.fromEntries(request.nextUrl.searchParams), now);
  if (view.notices.length > 0) return problemResponse(400, 'INVALID_INPUT', view.notices.join('; '));
  const exported = await inOneSnapshot(db, (snapshot) =>
    readStepsExport(snapshot, view, now, STEPS_EXPORT_CAP, ownersOf(person)),
  );
  if (!exported) {
    return problemResponse(
      400,
      'INVALID_INPUT',
      `More than ${STEPS_EXPORT_CAP.toLocaleString('en-US')} steps match: narrow the view by agent, source or search`,
    );
  }
  const stamp = now.toISOString().slice(0, 19).replaceAll(':', '-');
  return new Response(
    stepsCsv(exported.steps, {
      retryCauses: exported.retryCauses.byStep,
      owners: exported.owners,
      costSources: exported.costSources,
    }),
    {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="holdfast-steps-${view.window}-${stamp}.csv"`,
        'cache-control': 'no-store',
      },
    },
  );
});
