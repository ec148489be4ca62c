import { type NextRequest, NextResponse } from 'next/server';
import { z } from 'zod';
import { parseInput } from '@/lib/core/validation';
import { getBulkRedrive } from '@/lib/queries/dead-letters';
import { withDatabaseDeadline } from '@/lib/server/database-outage';
import { getDb } from '@/lib/server/db';
import { errorResponse, problemResponse } from '@/lib/server/problem';
import { getCurrentPerson } from '@/lib/server/session';

export const dynamic = 'force-dynamic';

const params = z.strictObject({ id: z.coerce.number().int().min(1) });

/** A bulk redrive's progress, which its progress bar polls. */
export async function GET(_request: NextRequest, context: { params: Promise<{ id: string }> }) {
  try {
    if (!(await getCurrentPerson())) return problemResponse(401, 'UNAUTHENTICATED', 'Sign in first');
    const { id } = parseInput(params, await context.params);
    const run = await withDatabaseDeadline(getBulkRedrive(getDb(), id));
    if (!run) return problemResponse(404, 'NOT_FOUND', `No bulk redrive ${id}`);
    return NextResponse.json(run, { headers: { 'cache-control': 'no-store' } });
  } catch (error) {
    return errorResponse(error);
  }
}
