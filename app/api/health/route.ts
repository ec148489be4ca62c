import { NextResponse } from 'next/server';
import { getHealth, type HealthReport } from '@/lib/queries/health';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DatabaseDeadlineError,
  withDatabaseDeadline,
} from '@/lib/server/database-outage';
import { getDb } from '@/lib/server/db';
import { isDraining } from '@/lib/server/draining';
import { getEnvironment } from '@holdfast/engine/env';

export const dynamic = 'force-dynamic';

/**
 * For load balancers and people: 200 while the database answers, 503 when it
 * does not. `down` names the dependencies that are out (today only the
 * database), so a person reading it knows where to look. A stopping instance
 * (SIGTERM, see scripts/start.ts) answers 503 `draining` without asking the
 * database: nothing is down, but new requests belong on another instance.
 */
export async function GET() {
  if (isDraining()) {
    // The drain is over by then: this process is gone, and a restarted one may answer.
    const retryAfter = Math.max(1, Math.ceil(getEnvironment().HOLDFAST_DRAIN_SECONDS));
    return NextResponse.json(
      { status: 'draining', message: 'This instance is stopping; send requests to another one.', down: [] },
      { status: 503, headers: { 'cache-control': 'no-store', 'retry-after': String(retryAfter) } },
    );
  }
  let report = await checkDatabase();
  // Right after an outage the pool may still hold a connection that died with the old server;
  // the first query on it fails and the pool replaces it. Ask once more before saying "down".
  if (report.status !== 'ok') report = await checkDatabase();
  const ok = report.status === 'ok';
  return NextResponse.json(
    { ...report, down: ok ? [] : ['database'] },
    {
      status: ok ? 200 : 503,
      headers: { 'cache-control': 'no-store', ...(ok ? {} : { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) }) },
    },
  );
}

async function checkDatabase(): Promise<HealthReport> {
  try {
    return await withDatabaseDeadline(getHealth(getDb()), 5_000);
  } catch (error) {
    const reason = error instanceof DatabaseDeadlineError ? 'no answer within 5 s' : 'DATABASE_URL is not set';
    return { status: 'unavailable', database: { reachable: false, error: reason } };
  }
}
