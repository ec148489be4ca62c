import { NextResponse } from 'next/server';
import { csvLine } from '@/lib/console/audit-view';
import { auditFilter } from '@/lib/console/filters/audit';
import { listAudit } from '@/lib/queries/audit';
import { consoleEndpoint } from '@/lib/server/console-endpoint';

export const dynamic = 'force-dynamic';

/** An export holds at most this many records, newest first; narrow the filter for older ones. */
const EXPORT_LIMIT = 50_000;

/** The audit page's filtered view as CSV, for a spreadsheet or an auditor. */
export const GET = consoleEndpoint({ query: auditFilter }, async ({ db, query }) => {
  const records = await listAudit(db, query, EXPORT_LIMIT);
  const header = csvLine([
    'occurred_at',
    'actor_type',
    'actor_id',
    'action',
    'target_type',
    'target_id',
    'reason',
    'before',
    'after',
  ]);
  const body = records.map((record) =>
    csvLine([
      record.occurredAt,
      record.actorType,
      record.actorId,
      record.action,
      record.targetType,
      record.targetId,
      record.reason,
      record.before,
      record.after,
    ]),
  );
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(':', '-');
  return new NextResponse(header + body.join(''), {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="holdfast-audit-${stamp}.csv"`,
      'cache-control': 'no-store',
    },
  });
});
