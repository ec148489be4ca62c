import { type NextRequest, NextResponse } from 'next/server';
import { auditFilter, csvLine } from '@/lib/audit-view';
import { parseInput } from '@/lib/core/validation';
import { listAudit } from '@/lib/queries/audit';
import { withDatabaseDeadline } from '@/lib/server/database-outage';
import { getDb } from '@/lib/server/db';
import { errorResponse, problemResponse } from '@/lib/server/problem';
import { getCurrentPerson } from '@/lib/server/session';

export const dynamic = 'force-dynamic';

/** An export holds at most this many records, newest first; narrow the filter for older ones. */
const EXPORT_LIMIT = 50_000;

/** The audit page's filtered view as CSV, for a spreadsheet or an auditor. */
export async function GET(request: NextRequest) {
  try {
    if (!(await getCurrentPerson())) return problemResponse(401, 'UNAUTHENTICATED', 'Sign in first');
    const filter = parseInput(auditFilter, Object.fromEntries(request.nextUrl.searchParams));
    const records = await withDatabaseDeadline(listAudit(getDb(), filter, EXPORT_LIMIT));
    const header = csvLine(['occurred_at', 'actor_type', 'actor_id', 'action', 'target_type', 'target_id', 'reason', 'before', 'after']);
    const body = records.map((record) =>
      csvLine([record.occurredAt, record.actorType, record.actorId, record.action, record.targetType, record.targetId, record.reason, record.before, record.after]),
    );
    const stamp = new Date().toISOString().slice(0, 19).replaceAll(':', '-');
    return new NextResponse(header + body.join(''), {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="holdfast-audit-${stamp}.csv"`,
        'cache-control': 'no-store',
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
