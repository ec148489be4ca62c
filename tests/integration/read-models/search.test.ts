import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimKey, deadLetterTask, ensureTaskBudget, openHold, recordAttempt } from '../../../packages/engine/src/core';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { searchById, SEARCH_LIMIT_PER_KIND, soleMatch } from '../../../lib/queries/search';
import { anAttempt } from '../../support/attempt-factory';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { anAgent } from '../../support/actors';
import { aDeadLetterInput } from '../../support/dead-letter-input';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() => addKnownOwners(database.db, ['team:payments']));
const agent = anAgent('search-worker');
const unique = () => randomUUID().slice(0, 8);

async function rollUp() {
  await rollUpAttempts(database.db, { now: new Date(), retentionFloor: new Date(Date.now() - 30 * 86_400_000) });
}

describe('searchById', () => {
  it('jumps to a task by its exact id though others start with it, and lists them for its start', async () => {
    const base = `search-task-${unique()}`;
    for (const taskId of [base, `${base}-a`, `${base}-b`])
      await ensureTaskBudget(database.db, { taskId, agent: 'payments', owner: 'team:payments' });
    const exact = await searchById(database.db, { term: base, kinds: ['task'] });
    expect(exact.map((hit) => hit.id)).toEqual([base, `${base}-a`, `${base}-b`]);
    expect(soleMatch(exact)).toMatchObject({ kind: 'task', id: base });

    const started = await searchById(database.db, { term: base.slice(0, -2), kinds: ['task'] });
    expect(started).toHaveLength(3);
    expect(soleMatch(started)).toBeUndefined();
  });

  it('finds a task known only from its attempts, and a step by agent/step before any rollup', async () => {
    const taskId = `search-attempts-${unique()}`;
    const step = `step_${unique()}`;
    await recordAttempt({ db: database.db }, anAttempt({ taskId, agent: 'research', step }));
    expect(soleMatch(await searchById(database.db, { term: taskId }))).toMatchObject({ kind: 'task', id: taskId });
    expect(soleMatch(await searchById(database.db, { term: `research/${step}` }))).toMatchObject({
      kind: 'step',
      agent: 'research',
      step,
    });
  });

  it('finds rolled-up steps by the start of their name or agent', async () => {
    const step = `findme_${unique()}`;
    await recordAttempt({ db: database.db }, anAttempt({ agent: 'outreach', step }));
    await recordAttempt({ db: database.db }, anAttempt({ agent: 'outreach', step: `${step}_two` }));
    await rollUp();
    const hits = await searchById(database.db, { term: step.slice(0, 10), kinds: ['step'] });
    expect(hits.map((hit) => hit.id)).toEqual([`outreach/${step}`, `outreach/${step}_two`]);
    expect(soleMatch(await searchById(database.db, { term: step, kinds: ['step'] }))).toMatchObject({ step });
  });

  it('finds a key by its start, a hold and a dead letter by id; two exact ids make a list', async () => {
    const key = `raw:search-key-${unique()}/send_email`;
    await claimKey({ db: database.db }, { key, requestHash: 'h' });
    expect(soleMatch(await searchById(database.db, { term: key.slice(0, 20) }))).toMatchObject({
      kind: 'key',
      id: key,
    });

    const taskId = `search-hold-${unique()}`;
    await ensureTaskBudget(database.db, { taskId, agent: 'payments', owner: 'team:payments' });
    const { hold } = await openHold(
      { db: database.db, actor: agent },
      { itemType: 'task', itemId: taskId, reason: 'needs_approval', detail: 'Over the limit', owner: 'team:payments' },
    );
    const { deadLetter } = await deadLetterTask(
      database.db,
      agent,
      aDeadLetterInput({ taskId: `search-dl-${unique()}` }),
    );
    expect(await searchById(database.db, { term: String(hold.id), kinds: ['hold'] })).toEqual([
      {
        kind: 'hold',
        id: String(hold.id),
        exact: true,
        itemType: 'task',
        itemId: taskId,
        status: 'open',
        owner: 'team:payments',
      },
    ]);
    expect(
      soleMatch(await searchById(database.db, { term: String(deadLetter.id), kinds: ['dead_letter'] })),
    ).toMatchObject({ kind: 'dead_letter', id: String(deadLetter.id), agent: 'payments', step: 'charge' });
    // Hold and dead-letter ids are separate sequences: the same number can name one of each.
    const both = await searchById(database.db, { term: String(Math.min(hold.id, deadLetter.id)) });
    if (both.filter((hit) => hit.exact).length > 1) expect(soleMatch(both)).toBeUndefined();
  });

  it('takes wildcards literally, finds nothing for an unknown id, and limits every kind', async () => {
    const base = `search-many-${unique()}`;
    for (let index = 0; index < SEARCH_LIMIT_PER_KIND + 5; index += 1)
      await ensureTaskBudget(database.db, { taskId: `${base}-${index}`, agent: 'payments', owner: 'team:payments' });
    expect(await searchById(database.db, { term: base })).toHaveLength(SEARCH_LIMIT_PER_KIND);
    expect(await searchById(database.db, { term: `${base.slice(0, 8)}%` })).toEqual([]);
    expect(await searchById(database.db, { term: `search_many` })).toEqual([]);
    expect(await searchById(database.db, { term: 'does-not-exist' })).toEqual([]);
  });

  it('reports the plans its prefix lookups get in this database', async () => {
    const [collation] = await database.db.execute<{ datcollate: string }>(
      sql`select datcollate from pg_database where datname = current_database()`,
    );
    // One transaction, so `set local` holds for the connection the plans are asked on: the table
    // is nearly empty, and without it any plan is a sequential scan.
    const [likePlan, rangePlan] = await database.db.transaction(async (tx) => {
      const plan = async (query: ReturnType<typeof sql>) =>
        (await tx.execute<{ 'QUERY PLAN': string }>(sql`explain ${query}`)).map((row) => row['QUERY PLAN']).join('\n');
      await tx.execute(sql`set local enable_seqscan = off`);
      return [
        await plan(sql`select key from idempotency_keys where key like 'abc%' order by key limit 10`),
        await plan(sql`select key from idempotency_keys where key >= 'abc' and key < 'abd' and key like 'abc%'`),
      ];
    });
    // Printed for the record: `like` alone is an index range only under the C collation (not
    // C.UTF-8 in PostgreSQL 15); the range startsWith adds is an index condition in any collation.
    console.info(`collation ${collation?.datcollate}\n${likePlan}\n${rangePlan}`);
    expect(rangePlan).toMatch(/Index Cond: \(\(key >= 'abc'::text\) AND \(key < 'abd'::text\)\)/);
  });
});
