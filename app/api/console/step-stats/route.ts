import { type NextRequest, NextResponse } from 'next/server';
import { z } from 'zod';
import { parseInput } from '@/lib/core/validation';
import { getStepStatsView } from '@/lib/queries/step-stats';
import { withDatabaseDeadline } from '@/lib/server/database-outage';
import { getDb } from '@/lib/server/db';
import { errorResponse, problemResponse } from '@/lib/server/problem';
import { getCurrentPerson } from '@/lib/server/session';
import { DEFAULT_TIME_WINDOW, timeWindowName } from '@/lib/time-window';

export const dynamic = 'force-dynamic';

const stepStatsParams = z.strictObject({ window: timeWindowName.default(DEFAULT_TIME_WINDOW) });

/** What the Overview polls: per-step retry figures for one window. */
export async function GET(request: NextRequest) {
  try {
    if (!(await getCurrentPerson())) return problemResponse(401, 'UNAUTHENTICATED', 'Sign in first');
    const { window } = parseInput(stepStatsParams, Object.fromEntries(request.nextUrl.searchParams));
    const view = await withDatabaseDeadline(getStepStatsView(getDb(), window, new Date()));
    return NextResponse.json(view, { headers: { 'cache-control': 'no-store' } });
  } catch (error) {
    return errorResponse(error);
  }
}
