import { randomUUID } from 'node:crypto';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUDIT_EXPORT_ROW_CAP, auditCsvStream } from '../../../app/api/console/audit.csv/audit-csv-stream';
import { csvLine } from '../../../lib/console/audit-view';
import { auditFilter } from '../../../lib/filters/audit';
import type { Actor } from '../../../packages/engine/src/core';
import { writeAuditRecords } from '../../../packages/engine/src/core/audit/audit-log';
import { listAudit } from '../../../lib/queries/audit';
import { useTestDatabase } from '../../support/test-database';
import { closeAppDatabase } from '../../support/app-database';

/**
 * The audit CSV export streams the filtered log a page at a time (never one
 * string of every row), stops at its row cap, and runs one at a time per person.
 */
const viewer = { type: 'person', id: 'viewer@example.com', role: 'viewer', teams: [] } as const;
const admin = { type: 'person', id: 'admin@example.com', role: 'admin', teams: [] } as const;
const session = vi.hoisted(() => ({ current: async (): Promise<unknown> => undefined }));
vi.mock('../../../lib/server/session', () => ({ getCurrentPerson: () => session.current() }));

const database = useTestDatabase();
const action = `export.test.${randomUUID()}`;
const RECORDS = 2_345;
const system: Actor = { type: 'system', id: 'export-test' };

beforeAll(async () => {
  process.env.DATABASE_URL = database.url;
  // In transactions of 500: each shares one occurred_at, so paging must break ties by id exactly.
  for (let start = 0; start < RECORDS; start += 500) {
    await database.db.transaction((tx) =>
      writeAuditRecords(
        tx,
        system,
        Array.from({ length: Math.min(500, RECORDS - start) }, (_, index) => ({
          action,
          targetType: 'test',
          targetId: String(start + index),
          reason: index % 7 === 0 ? 'has, a comma and "quotes"' : null,
          after: { n: start + index },
        })),
      ),
    );
  }
});
afterAll(closeAppDatabase);
beforeEach(() => {
  session.current = async () => viewer;
});

const HEADER = 'occurred_at,actor_type,actor_id,action,target_type,target_id,reason,before,after\r\n';
const exportOf = async () => (await import('../../../app/api/console/audit.csv/route')).GET;
const get = (query = `?action=${action}`) => new NextRequest(`http://holdfast.test/api/console/audit.csv${query}`);

async function expectedCsv(limit: number) {
  const records = await listAudit(database.db, auditFilter.parse({ action }), limit);
  return (
    HEADER +
    records
      .map((record) =>
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
      )
      .join('')
  );
}

describe('the audit CSV export', () => {
  it('streams every matching record exactly once, newest first, the same file the one-query export wrote', async () => {
    const GET = await exportOf();
    const response = await GET(get());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('x-holdfast-row-cap')).toBe(String(AUDIT_EXPORT_ROW_CAP));
    expect(response.body).toBeInstanceOf(ReadableStream);
    const text = await response.text();
    expect(text).toBe(await expectedCsv(RECORDS + 10));
    const lines = text.split('\r\n').filter((line) => line !== '');
    expect(lines).toHaveLength(RECORDS + 1);
    const targetIds = lines.slice(1).map((line) => line.split(',')[5]);
    expect(new Set(targetIds).size).toBe(RECORDS);
  });

  it('stops at its row cap, read a page at a time, and says it has finished once', async () => {
    const finished = vi.fn(async () => {});
    const reads: number[] = [];
    const stream = auditCsvStream(database.db, auditFilter.parse({ action }), {
      rowCap: 1_000,
      pageRows: 300,
      finished,
    });
    const reader = stream.getReader();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      reads.push(text.length);
    }
    expect(text).toBe(await expectedCsv(1_000));
    // The header, then pages of 300, 300, 300 and the last 100 to the cap.
    expect(reads).toHaveLength(5);
    expect(finished).toHaveBeenCalledTimes(1);
  });

  it("runs one export per person at a time: a second is refused 409 until the first ends; another person's runs", async () => {
    const GET = await exportOf();
    const first = await GET(get());
    expect(first.status).toBe(200);

    const second = await GET(get());
    expect(second.status).toBe(409);
    expect(second.headers.get('retry-after')).toBe('5');
    expect(await second.json()).toMatchObject({
      code: 'REQUEST_IN_PROGRESS',
      retryable: true,
      detail: expect.stringContaining('one export per person at a time'),
    });

    session.current = async () => admin;
    const someoneElse = await GET(get());
    expect(someoneElse.status).toBe(200);
    // Cancelled (the person closed the tab): that ends the export too.
    await someoneElse.body?.cancel();
    expect((await GET(get())).status).toBe(200);

    session.current = async () => viewer;
    expect((await first.text()).startsWith(HEADER)).toBe(true);
    const third = await GET(get());
    expect(third.status).toBe(200);
    await third.text();
  });
});
