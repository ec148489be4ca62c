import { type NextRequest, NextResponse } from 'next/server';
import { recordAttempt, recordAttemptInput } from '@/lib/core';
import { parseInput } from '@/lib/core/validation';
import { authenticateAgent, readJsonBody } from '@/lib/server/api-auth';
import { getDb } from '@/lib/server/db';
import { errorResponse } from '@/lib/server/problem';

export const dynamic = 'force-dynamic';

/** Report one finished attempt of a step (token scope: ingest). A repeated report answers 200 with the stored attempt. */
export async function POST(request: NextRequest) {
  const agent = await authenticateAgent(request, 'attempt.record');
  if ('response' in agent) return agent.response;
  const read = await readJsonBody(request);
  if ('response' in read) return read.response;
  try {
    const report = parseInput(recordAttemptInput, read.body); // 400 naming every bad field
    const { attempt, duplicate } = await recordAttempt({ db: getDb(), actor: agent.actor }, report);
    return NextResponse.json({ attempt, duplicate }, { status: duplicate ? 200 : 201 });
  } catch (error) {
    return errorResponse(error);
  }
}
