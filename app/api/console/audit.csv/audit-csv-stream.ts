import { csvLine } from '@/lib/console/audit-view';
import type { AuditFilter } from '@/lib/filters/audit';
import type { Executor } from '@holdfast/engine/db';
import type { AuditRecord } from '@holdfast/engine/db/schema';
import { readAuditAfter } from '@/lib/queries/audit';
import { logUnexpectedError } from '@/lib/server/log-error';

/** The most records one export holds, newest first (docs/console.md, Audit): narrow the filter for older ones. */
export const AUDIT_EXPORT_ROW_CAP = 50_000;
/** Records read per statement: the export holds one page in memory at a time, never the whole file. */
export const AUDIT_EXPORT_PAGE_ROWS = 1_000;

/** The export's columns, in order: every field of a record but its place in the hash chain. */
const columns = [
  ['occurred_at', 'occurredAt'],
  ['actor_type', 'actorType'],
  ['actor_id', 'actorId'],
  ['action', 'action'],
  ['target_type', 'targetType'],
  ['target_id', 'targetId'],
  ['reason', 'reason'],
  ['before', 'before'],
  ['after', 'after'],
] as const satisfies readonly (readonly [string, keyof AuditRecord])[];

const HEADER = csvLine(columns.map(([heading]) => heading));
const lineOf = (record: AuditRecord) => csvLine(columns.map(([, field]) => record[field]));

/**
 * The filtered audit log as a CSV stream: the header, then the records newest
 * first, read a page at a time by keyset (each read continues after the last
 * row sent, so rows written meanwhile neither repeat nor shift it), as fast as
 * the client takes them, up to `rowCap` records. `finished` runs once however
 * the stream ends: read to its end, failed, or cancelled by the client.
 */
export function auditCsvStream(
  db: Executor,
  filter: AuditFilter,
  options: { rowCap?: number; pageRows?: number; finished: () => Promise<void> },
): ReadableStream<Uint8Array> {
  const rowCap = options.rowCap ?? AUDIT_EXPORT_ROW_CAP;
  const pageRows = options.pageRows ?? AUDIT_EXPORT_PAGE_ROWS;
  const encoder = new TextEncoder();
  let sent = 0;
  let after: { at: string; id: string } | undefined;
  let done = false;
  const finish = async () => {
    if (done) return;
    done = true;
    await options.finished();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(HEADER));
      },
      async pull(controller) {
        try {
          const limit = Math.min(pageRows, rowCap - sent);
          const rows = limit > 0 ? await readAuditAfter(db, filter, after, limit) : [];
          const last = rows.at(-1);
          if (last) {
            controller.enqueue(encoder.encode(rows.map(lineOf).join('')));
            sent += rows.length;
            after = { at: last.cursorAt, id: String(last.id) };
          }
          if (rows.length < limit || sent >= rowCap) {
            // Released first: whoever has read the whole file may start the next export at once.
            await finish();
            controller.close();
          }
        } catch (error) {
          // The download ends short; the person sees a failed download, the log sees why (bounded).
          logUnexpectedError(error);
          await finish();
          controller.error(error);
        }
      },
      async cancel() {
        await finish();
      },
    },
    // One page ahead at most: the next read waits until the client has taken this one.
    { highWaterMark: 1 },
  );
}
