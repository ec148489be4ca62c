import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditFilter } from '../../../lib/filters/audit';
import { holdsFilter } from '../../../lib/filters/holds';
import { encodeKeysetCursor, type KeysetCursor } from '../../../lib/filters/keyset-cursor';
import { readFilter } from '../../../lib/filters/read-filter';
import { pageAudit } from '../../../lib/queries/audit';
import { listHolds } from '../../../lib/queries/holds';
import type { KeysetPage } from '../../../lib/queries/keyset';
import { findKeys, listExpiredInProgress } from '../../../lib/queries/keys';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const PAGE = 20;
/** Rows in each set: not a multiple of the page, so the last page is short. */
const ROWS = 137;

/**
 * Walks a list from its first page by Next to its end, then back by Previous,
 * checking each page's "Showing A–B of N" against the rows seen so far.
 */
async function walk<Row>(
  read: (position: { after?: KeysetCursor; before?: KeysetCursor }) => Promise<KeysetPage<Row>>,
  idOf: (row: Row) => string | number,
) {
  const forward: (string | number)[] = [];
  let page = await read({});
  for (;;) {
    expect(page.start).toBe(forward.length + 1);
    expect(page.end).toBe(forward.length + page.rows.length);
    expect(page.total).toBe(ROWS);
    forward.push(...page.rows.map(idOf));
    if (!page.next) break;
    expect(page.rows).toHaveLength(PAGE);
    page = await read({ after: page.next });
  }
  const backward: (string | number)[] = [...page.rows.map(idOf)];
  while (page.previous) {
    page = await read({ before: page.previous });
    expect(page.rows).toHaveLength(PAGE);
    expect(page.end).toBe(ROWS - backward.length);
    backward.unshift(...page.rows.map(idOf));
  }
  expect(page.start).toBe(1);
  return { forward, backward };
}

/** Times that tie in groups of seven and differ below a millisecond between groups (a Date would merge them). */
const tiedTime = () => sql.raw("timestamptz '2026-11-30 08:00:00+00' + (i / 7) * interval '1 microsecond'");

describe('keyset paging of the console lists', () => {
  it('pages open holds oldest first and cleared ones newest first, each hold exactly once, ties included', async () => {
    const owner = `team:paging-${randomUUID().slice(0, 8)}`;
    await database.db.execute(sql`
      insert into holds (item_type, item_id, reason, detail, owner, opened_at, opened_by, status, resolution, resolution_note, cleared_at, cleared_by)
      select 'task', 'paging-' || i, 'manual', 'detail', ${owner}, ${tiedTime()}, 'test',
        case when i % 2 = 0 then 'open' else 'cleared' end,
        case when i % 2 = 0 then null else 'resume' end,
        case when i % 2 = 0 then null else 'note' end,
        case when i % 2 = 0 then null else ${tiedTime()} end,
        case when i % 2 = 0 then null else 'person:test' end
      from generate_series(1, ${ROWS * 2}) as i`);
    const expected = async (view: 'open' | 'cleared') =>
      (
        await database.db.execute<{ id: string }>(
          view === 'open'
            ? sql`select id from holds where owner = ${owner} and status = 'open' order by opened_at, id`
            : sql`select id from holds where owner = ${owner} and status = 'cleared' order by cleared_at desc, id desc`,
        )
      ).map((row) => Number(row.id));

    for (const view of ['open', 'cleared'] as const) {
      const read = (position: { after?: KeysetCursor; before?: KeysetCursor }) =>
        listHolds(
          database.db,
          { ...holdsFilter.parse({ view }), owner, ...position },
          { owners: [], frozenAfterDays: 3, now: new Date(), pageSize: PAGE },
        );
      const { forward, backward } = await walk(read, (hold) => hold.id);
      const order = await expected(view);
      expect(order).toHaveLength(ROWS);
      expect(forward).toEqual(order);
      expect(backward).toEqual(order);
    }
  });

  it('pages the audit log newest first, each record exactly once, many in the same microsecond', async () => {
    const targetType = `paging-${randomUUID().slice(0, 8)}`;
    await database.db.execute(sql`
      insert into audit_log (occurred_at, actor_type, actor_id, action, target_type, target_id)
      select ${tiedTime()}, 'system', 'test', 'paging.test', ${targetType}, i::text
      from generate_series(1, ${ROWS}) as i`);
    const order = (
      await database.db.execute<{ id: string }>(
        sql`select id from audit_log where target_type = ${targetType} order by occurred_at desc, id desc`,
      )
    ).map((row) => Number(row.id));
    const { forward, backward } = await walk(
      (position) => pageAudit(database.db, { ...auditFilter.parse({ targetType }), ...position }, PAGE),
      (record) => record.id,
    );
    expect(forward).toEqual(order);
    expect(backward).toEqual(order);
  });

  it('pages keys found most recently changed first, ties broken by the key', async () => {
    const prefix = `paging-${randomUUID().slice(0, 8)}/`;
    await database.db.execute(sql`
      insert into idempotency_keys (key, scope, request_hash, status, fencing_token, holder_claim, downstream_idempotent, expires_at, updated_at)
      select ${prefix} || lpad(i::text, 4, '0'), 'test', 'h', 'completed', 1, 'c', true, now() + interval '1 day', ${tiedTime()}
      from generate_series(1, ${ROWS}) as i`);
    const order = (
      await database.db.execute<{ key: string }>(
        sql`select key from idempotency_keys where key like ${`${prefix}%`} order by updated_at desc, key desc`,
      )
    ).map((row) => row.key);
    const { forward, backward } = await walk(
      (position) =>
        findKeys(
          database.db,
          { key: prefix },
          position.after ? { after: position.after } : position.before ? { before: position.before } : {},
          PAGE,
        ),
      (row) => row.key,
    );
    expect(forward).toEqual(order);
    expect(backward).toEqual(order);
  });

  it('ignores a cursor it did not write, with a notice, and falls back to the first page for one past the end', async () => {
    const { filter, notices } = readFilter(holdsFilter, { after: 'not-a-cursor', owner: 'team:x' });
    expect(filter.after).toBeUndefined();
    expect(filter.owner).toBe('team:x');
    expect(notices).toEqual(['Ignored after=“not-a-cursor”']);
    // Shaped like a cursor, but PostgreSQL would refuse the cast: refused here, so never a 500.
    for (const hostile of [
      '2026-13-01 00:00:00+00~1',
      '2026-02-31 00:00:00+00~1',
      '2026-11-30 25:00:00+00~1',
      '2026-11-30 08:00:00+00~abc',
      '2026-11-30 08:00:00+00~99999999999999999999',
    ]) {
      const read = readFilter(holdsFilter, { before: hostile });
      expect(read.filter.before, hostile).toBeUndefined();
      expect(read.notices, hostile).toHaveLength(1);
    }
    expect(readFilter(holdsFilter, { after: '2026-11-30 08:00:00.123456+05:30~42' }).filter.after).toEqual({
      at: '2026-11-30 08:00:00.123456+05:30',
      id: '42',
    });

    const targetType = `paging-${randomUUID().slice(0, 8)}`;
    await database.db.execute(sql`
      insert into audit_log (actor_type, actor_id, action, target_type, target_id)
      select 'system', 'test', 'paging.test', ${targetType}, i::text from generate_series(1, 3) as i`);
    const pastTheEnd = readFilter(auditFilter, {
      targetType,
      after: encodeKeysetCursor({ at: '2000-01-01 00:00:00+00', id: '1' }),
    });
    expect(pastTheEnd.notices).toEqual([]);
    const page = await pageAudit(database.db, pastTheEnd.filter, PAGE);
    expect(page.rows).toHaveLength(3);
    expect(page.start).toBe(1);
  });
});

describe('the Keys page lists of expired claims', () => {
  it('keeps an uncertain key on its list when more than a page of older takeover keys wait', async () => {
    const prefix = `expired-${randomUUID().slice(0, 8)}/`;
    await database.db.execute(sql`
      insert into idempotency_keys (key, scope, request_hash, status, fencing_token, holder_claim, downstream_idempotent, expires_at, locked_until, updated_at)
      select ${prefix} || 'takeover-' || i, 'test', 'h', 'in_progress', 1, 'c', true, now() + interval '1 day',
        now() - interval '2 hours', now()
      from generate_series(1, 120) as i`);
    await database.db.execute(sql`
      insert into idempotency_keys (key, scope, request_hash, status, fencing_token, holder_claim, downstream_idempotent, expires_at, locked_until, updated_at)
      values (${`${prefix}uncertain`}, 'test', 'h', 'in_progress', 1, 'c', false, now() + interval '1 day', now() - interval '1 minute', now())`);

    const lists = await listExpiredInProgress(database.db);
    expect(lists.uncertain.map((key) => key.key)).toEqual([`${prefix}uncertain`]);
    expect(lists.takeover).toHaveLength(lists.limit);
    expect(lists.totals).toEqual({ takeover: 120, uncertain: 1 });
  });
});
