import { type NextRequest, NextResponse } from 'next/server';
import { z } from 'zod';
import { parseInput } from '@/lib/core/validation';
import { getStepStatsView } from '@/lib/queries/step-stats';
import { authenticateAgent } from '@/lib/server/api-auth';
import { getDb } from '@/lib/server/db';
import { errorResponse } from '@/lib/server/problem';
import { DEFAULT_TIME_WINDOW, timeWindowName } from '@/lib/time-window';

export const dynamic = 'force-dynamic';

const stepStatsParams = z.strictObject({ window: timeWindowName.default(DEFAULT_TIME_WINDOW) });

/** Per-step retry figures for a window (token scope: read). */
export async function GET(request: NextRequest) {
  const agent = await authenticateAgent(request, 'console.read');
  if ('response' in agent) return agent.response;
  try {
    const { window } = parseInput(stepStatsParams, Object.fromEntries(request.nextUrl.searchParams));
    return NextResponse.json(await getStepStatsView(getDb(), window, new Date()));
  } catch (error) {
    return errorResponse(error);
  }
}
