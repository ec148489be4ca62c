import { type NextRequest, NextResponse } from 'next/server';
import { z } from 'zod';
import { parseInput } from '@/lib/core/validation';
import { getOverview } from '@/lib/queries/overview';
import { withDatabaseDeadline } from '@/lib/server/database-outage';
import { getDb } from '@/lib/server/db';
import { errorResponse, problemResponse } from '@/lib/server/problem';
import { getCurrentPerson } from '@/lib/server/session';
import { DEFAULT_TIME_WINDOW, timeWindowName } from '@/lib/time-window';

export const dynamic = 'force-dynamic';

const overviewParams = z.strictObject({ window: timeWindowName.default(DEFAULT_TIME_WINDOW) });

/** What the Overview's headline and charts poll. */
export async function GET(request: NextRequest) {
  try {
    if (!(await getCurrentPerson())) return problemResponse(401, 'UNAUTHENTICATED', 'Sign in first');
    const { window } = parseInput(overviewParams, Object.fromEntries(request.nextUrl.searchParams));
    return NextResponse.json(await withDatabaseDeadline(getOverview(getDb(), window, new Date())), { headers: { 'cache-control': 'no-store' } });
  } catch (error) {
    return errorResponse(error);
  }
}
