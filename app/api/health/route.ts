import { NextResponse } from 'next/server';
import { getHealth, type HealthReport } from '@/lib/queries/health';
import { getDb } from '@/lib/server/db';

export const dynamic = 'force-dynamic';

/** For load balancers and people: 200 while the database answers, 503 when it does not. */
export async function GET() {
  let report: HealthReport;
  try {
    report = await getHealth(getDb());
  } catch {
    report = { status: 'unavailable', database: { reachable: false, error: 'DATABASE_URL is not set' } };
  }
  return NextResponse.json(report, {
    status: report.status === 'ok' ? 200 : 503,
    headers: { 'cache-control': 'no-store' },
  });
}
