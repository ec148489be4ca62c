import { auditFilter } from '@/lib/filters/audit';
import { consoleEndpoint } from '@/lib/server/console-endpoint';
import { getRequestLocks } from '@/lib/server/db';
import { problemResponse } from '@/lib/server/problem';
import { AUDIT_EXPORT_ROW_CAP, auditCsvStream } from './audit-csv-stream';

export const dynamic = 'force-dynamic';

/**
 * The audit page's filtered view as CSV, for a spreadsheet or an auditor:
 * streamed a page at a time, at most AUDIT_EXPORT_ROW_CAP records (newest
 * first), and one export per person at a time. The export holds a session
 * lock (request-locks.ts, so across instances too) until its stream ends; a
 * second one meanwhile is told 409 to wait, instead of a person's double click
 * or a script's loop reading the log twice over at once.
 */
export const GET = consoleEndpoint({ query: auditFilter }, async ({ db, person, query }) => {
  const release = await getRequestLocks().tryAcquire(person.id, 'audit.csv', 'audit-export');
  if (!release) {
    return problemResponse(
      409,
      'REQUEST_IN_PROGRESS',
      'Your previous audit export is still downloading: one export per person at a time. Try again when it has finished.',
      { retryAfterSeconds: 5 },
    );
  }
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(':', '-');
  return new Response(auditCsvStream(db, query, { finished: release }), {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="holdfast-audit-${stamp}.csv"`,
      'cache-control': 'no-store',
      // Said where a script can read it: the file holds the newest records up to this many.
      'x-holdfast-row-cap': String(AUDIT_EXPORT_ROW_CAP),
    },
  });
});
