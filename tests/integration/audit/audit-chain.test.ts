import { spawnSync } from 'node:child_process';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../packages/engine/src/core';
import { writeAudit } from '../../../packages/engine/src/core/audit/audit-log';
import { auditRecordHash } from '../../../packages/engine/src/db/audit-chain-hash';
import { connectDatabase, type DatabaseConnection } from '../../../packages/engine/src/db/client';
import { verifyAuditChain } from '../../../packages/engine/src/db/verify-audit-chain';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const projectRoot = path.resolve(import.meta.dirname, '../../..');
const sweeper: Actor = { type: 'system', id: 'sweeper' };

let app: DatabaseConnection;
beforeAll(() => {
  app = connectDatabase(database.appUrl, { maxConnections: 16 });
});
afterAll(async () => {
  await app?.close();
});

/** `npm run audit:verify` against this file's database, as the application role. */
function runAuditVerify() {
  const result = spawnSync(path.join(projectRoot, 'node_modules/.bin/tsx'), ['scripts/audit-verify.ts'], {
    cwd: projectRoot,
    env: {
      NODE_ENV: 'production',
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: database.appUrl,
    },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { status: result.status, stdout: result.stdout.trim() };
}

/** What a superuser can do and the application cannot: write past the append-only triggers. */
async function tamper(statement: string): Promise<void> {
  await database.sql.begin(async (tx) => {
    await tx.unsafe('set local session_replication_role = replica');
    await tx.unsafe(statement);
  });
}

async function idAt(position: number): Promise<string> {
  const [row] = await database.sql<{ id: string }[]>`select id::text from audit_log where chain_position = ${position}`;
  return row!.id;
}

describe('the audit chain', () => {
  it('stays whole with many connections writing at once, rolled-back writers included', async () => {
    const writers = Array.from({ length: 120 }, (_, index) =>
      app.db
        .transaction(async (tx) => {
          await writeAudit(tx, sweeper, {
            action: 'lock.release',
            targetType: 'slot_lock',
            targetId: `site/${index}`,
            after: { index },
          });
          if (index % 3 === 0)
            await writeAudit(tx, sweeper, { action: 'lock.note', targetType: 'slot_lock', targetId: `site/${index}` });
          // A writer that rolls back after taking its place must leave no gap behind.
          if (index % 10 === 0) throw new Error('rolled back on purpose');
        })
        .catch((error: unknown) => {
          if (!(error instanceof Error && error.message === 'rolled back on purpose')) throw error;
        }),
    );
    await Promise.all(writers);

    const expected = 120 - 12 + (40 - 4); // writers kept (108) plus the second records of kept writers divisible by 3
    const positions = await database.sql<
      { position: string }[]
    >`select chain_position::text as position from audit_log order by chain_position`;
    expect(positions.map((row) => Number(row.position))).toEqual(
      Array.from({ length: expected }, (_, index) => index + 1),
    );
    expect(await verifyAuditChain(app.sql)).toMatchObject({ whole: true, records: expected, headPosition: expected });
  });

  it("hashes the same whatever the writing session's TimeZone and DateStyle", async () => {
    const elsewhere = postgres(database.appUrl, {
      max: 1,
      onnotice: () => {},
      connection: { TimeZone: 'Pacific/Chatham', DateStyle: 'SQL, DMY' },
    });
    try {
      const [written] = await elsewhere<{ id: string; occurred: string }[]>`
        insert into audit_log (actor_type, actor_id, action, target_type, target_id, reason, before)
        values ('person', 'ana@example.com', 'hold.clear', 'hold', '7', ${'résumé | 3:x ~'}, ${'{"b": 1, "a": [1.50, "x"]}'}::jsonb)
        returning id::text, occurred_at::text as occurred`;
      expect(written?.occurred).toMatch(/\+1[23]:?45/); // the session really was elsewhere
    } finally {
      await elsewhere.end({ timeout: 5 });
    }
    expect(await verifyAuditChain(app.sql)).toMatchObject({ whole: true });
  });

  it('computes the same hash in the database and in the verifier', async () => {
    const record = await writeAudit(app.db, sweeper, {
      action: 'key.expire',
      targetType: 'key',
      targetId: 'k/1',
      reason: null,
      before: { emoji: '🔒' },
    });
    const [text] = await database.sql<{ before: string; occurred: string }[]>`
      select before::text as before, to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as occurred
      from audit_log where id = ${record.id}`;
    const hash = auditRecordHash({
      id: String(record.id),
      chainPosition: String(record.chainPosition),
      previousHash: record.previousHash,
      occurredAt: text!.occurred,
      actorType: record.actorType,
      actorId: record.actorId,
      action: record.action,
      targetType: record.targetType,
      targetId: record.targetId,
      reason: record.reason,
      before: text!.before,
      after: null,
    });
    expect(record.recordHash).toBe(hash);
  });

  it('audit:verify prints a summary and exits 0 on a whole chain', () => {
    const { status, stdout } = runAuditVerify();
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Audit chain whole: \d+ records, positions 1\.\.\d+, head hash [0-9a-f]{64}$/);
  });

  it('audit:verify names the first broken record after a superuser edits one', async () => {
    const edited = await idAt(3);
    await tamper(`update audit_log set reason = 'nothing to see' where chain_position = 3`);
    const { status, stdout } = runAuditVerify();
    expect(status).toBe(1);
    expect(stdout).toMatch(
      new RegExp(
        `^Audit chain broken at record id ${edited} \\(position 3\\): changed fields: its fields hash to [0-9a-f]{64}, not the [0-9a-f]{64} written with it$`,
      ),
    );
  });

  it('names a removed record as a gap, and a re-linked one as a wrong previous hash', async () => {
    // Put the edits back (as the tamperer could) to reach the next kind of damage.
    await tamper(`update audit_log set reason = null where chain_position = 3`);
    expect(await verifyAuditChain(app.sql)).toMatchObject({ whole: true });

    await tamper('delete from audit_log where chain_position = 5');
    expect(await verifyAuditChain(app.sql)).toMatchObject({
      whole: false,
      recordId: await idAt(6),
      position: '6',
      problem: expect.stringMatching(/^a gap: position 5 was expected/),
    });

    // Closing the gap by renumbering still leaves the next record naming the removed one's hash.
    // (in two steps: the positions are unique at every row, not only at the end)
    await tamper(`update audit_log set chain_position = -chain_position where chain_position > 5`);
    await tamper(`update audit_log set chain_position = -chain_position - 1 where chain_position < 0`);
    expect(await verifyAuditChain(app.sql)).toMatchObject({
      whole: false,
      position: '5',
      problem: expect.stringMatching(/^a wrong previous hash/),
    });
  });
});
