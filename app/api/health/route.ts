import { NextResponse } from 'next/server';
import { getHealth, type HealthReport } from '@/lib/queries/health';
import { DATABASE_RETRY_AFTER_SECONDS } from '@/lib/server/database-outage';
import { getDb } from '@/lib/server/db';

export const dynamic = 'force-dynamic';

/**
 * For load balancers and people: 200 while the database answers, 503 when it
 * does not. `down` names the dependencies that are out (today only the
 * database), so a person reading it knows where to look.
 */
export async function GET() {
  let report: HealthReport;
  try {
    report = await getHealth(getDb());
  } catch {
    report = { status: 'unavailable', database: { reachable: false, error: 'DATABASE_URL is not set' } };
  }
  const ok = report.status === 'ok';
  return NextResponse.json(
    { ...report, down: ok ? [] : ['database'] },
    {
      status: ok ? 200 : 503,
      headers: { 'cache-control': 'no-store', ...(ok ? {} : { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) }) },
    },
  );
}
