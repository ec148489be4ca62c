import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { discardErrorGroup, runStep, StepError } from '../../../packages/engine/src/core';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { auditLog, deadLetters, holds } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { aPerson, oncall } from '../../support/actors';

const database = useTestDatabase();
const viewer = aPerson('viewer', 'viewer@example.com');

/** A task whose step failed permanently with this error: one dead letter and its open hold. */
async function deadLetterWith(agent: string, error: string): Promise<number> {
  const taskId = `task-${randomUUID()}`;
  const outcome = await runStep(
    { db: database.db },
    { taskId, agent, owner: 'team:mail', step: 'send', content: { taskId }, retryAllowance: 1 },
    async () => {
      throw new StepError('permanent', error);
    },
  );
  if (!('deadLetterId' in outcome) || !outcome.deadLetterId)
    throw new Error(`no dead letter: ${JSON.stringify(outcome)}`);
  return outcome.deadLetterId;
}

async function fingerprintOf(id: number): Promise<string> {
  const [row] = await database.db
    .select({ group: deadLetters.errorFingerprint })
    .from(deadLetters)
    .where(eq(deadLetters.id, id));
  return row!.group!;
}

const statuses = async (ids: number[]) =>
  (await database.db.select({ status: deadLetters.status }).from(deadLetters).where(inArray(deadLetters.id, ids))).map(
    (row) => row.status,
  );

describe('discardErrorGroup', () => {
  it("discards exactly the group's pending dead letters, each audited with its hold cleared, and leaves other groups", async () => {
    const agent = `mailer-${randomUUID().slice(0, 8)}`;
    const group = await Promise.all(
      ['a@x.invalid', 'b@y.invalid', 'c@z.invalid'].map((address) =>
        deadLetterWith(agent, `400 Bad Request: the recipient address "${address}" is invalid`),
      ),
    );
    const other = await deadLetterWith(agent, 'quota exceeded for the day');
    const fingerprint = await fingerprintOf(group[0]!);
    expect(new Set(await Promise.all(group.map(fingerprintOf)))).toEqual(new Set([fingerprint]));

    const result = await discardErrorGroup(
      { db: database.db, actor: oncall },
      { group: fingerprint, reason: 'addresses will never be valid', expectedCount: 3 },
    );
    expect(result).toEqual({ discarded: 3 });
    expect(await statuses(group)).toEqual(['discarded', 'discarded', 'discarded']);
    expect(await statuses([other])).toEqual(['pending']);
    const audits = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'dead_letter.discard'), inArray(auditLog.targetId, group.map(String))));
    expect(audits).toHaveLength(3);
    expect(new Set(audits.map((row) => row.reason))).toEqual(new Set(['addresses will never be valid']));
    const openHolds = await database.db
      .select()
      .from(holds)
      .where(
        and(eq(holds.itemType, 'dead_letter'), inArray(holds.itemId, group.map(String)), eq(holds.status, 'open')),
      );
    expect(openHolds).toEqual([]);
  });

  it('discards nothing when the group no longer holds the count confirmed, and refuses a viewer', async () => {
    const agent = `mailer-${randomUUID().slice(0, 8)}`;
    const first = await deadLetterWith(agent, '404: mailbox gone');
    const fingerprint = await fingerprintOf(first);
    // A second letter arrives after the person looked at one.
    const second = await deadLetterWith(agent, '404: mailbox gone');
    await expect(
      discardErrorGroup({ db: database.db, actor: oncall }, { group: fingerprint, reason: 'gone', expectedCount: 1 }),
    ).rejects.toMatchObject({ code: 'STATE_CONFLICT' });
    expect(await statuses([first, second])).toEqual(['pending', 'pending']);
    await expect(
      discardErrorGroup({ db: database.db, actor: viewer }, { group: fingerprint, reason: 'gone', expectedCount: 2 }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      discardErrorGroup({ db: database.db, actor: oncall }, { group: 'not-a-group', reason: '', expectedCount: 0 }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await statuses([first, second])).toEqual(['pending', 'pending']);
  });

  it('two people discarding one group at once: one discards it all, the other is told it changed', async () => {
    const agent = `mailer-${randomUUID().slice(0, 8)}`;
    const ids = await Promise.all([1, 2, 3, 4].map(() => deadLetterWith(agent, '410: list unsubscribed')));
    const fingerprint = await fingerprintOf(ids[0]!);
    const pools = [1, 2, 3, 4].map(() => connectDatabase(database.url, { maxConnections: 1 }));
    try {
      const outcomes = await Promise.allSettled(
        pools.map((pool) =>
          discardErrorGroup(
            { db: pool.db, actor: oncall },
            { group: fingerprint, reason: 'unsubscribed', expectedCount: 4 },
          ),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(
        outcomes.filter((outcome) => outcome.status === 'rejected' && outcome.reason.code === 'STATE_CONFLICT'),
      ).toHaveLength(3);
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
    const audits = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'dead_letter.discard'), inArray(auditLog.targetId, ids.map(String))));
    expect(audits).toHaveLength(4);
  });
});
