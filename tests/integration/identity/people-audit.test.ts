import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadSessionVersion, savePerson, type Actor, type CoreContext } from '../../../packages/engine/src/core';
import type { Role } from '../../../packages/engine/src/db/schema';
import { auditLog, people } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { aPerson } from '../../support/actors';

/** The people tests' admin: an actor only, not a row, so it never counts as an admin in the table. */
const admin = aPerson('admin', 'root@example.com');
const adminActor = (email: string): Actor => ({ type: 'person', id: email, role: 'admin', teams: [] });

let serial = 0;
const uniqueEmail = (label: string) => `${label}-${++serial}-${Math.random().toString(16).slice(2, 8)}@example.com`;

describe('people: the audit records exactly what changed', () => {
  const database = useTestDatabase();
  const ctx = (): CoreContext => ({ db: database.db, actor: admin });

  const auditOf = (email: string) =>
    database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetType, 'person'), eq(auditLog.targetId, email)))
      .orderBy(auditLog.id);

  const addPerson = async (role: Role, teams: string[]) => {
    const email = uniqueEmail(role);
    await savePerson(ctx(), { email, displayName: 'Pat', role, teams });
    return email;
  };

  it('records a role-only change as the role alone, with the reason given', async () => {
    const email = await addPerson('viewer', ['payments']);
    const result = await savePerson(ctx(), {
      email,
      displayName: 'Pat',
      role: 'responder',
      teams: ['payments'],
      reason: 'joins the on-call rota',
    });
    expect(result).toEqual({ created: false, changed: true });
    const records = await auditOf(email);
    expect(records.map((record) => record.action)).toEqual(['person.create', 'person.update']);
    expect(records[1]).toMatchObject({
      actorId: admin.id,
      reason: 'joins the on-call rota',
      before: { role: 'viewer' },
      after: { role: 'responder' },
    });
    // Exactly: no teams, no name, nothing else.
    expect(records[1]?.before).toEqual({ role: 'viewer' });
    expect(records[1]?.after).toEqual({ role: 'responder' });
  });

  it('records a teams-only change as the teams alone; the same teams in another order are no change', async () => {
    const email = await addPerson('viewer', ['payments']);
    await savePerson(ctx(), {
      email,
      displayName: 'Pat',
      role: 'viewer',
      teams: ['web', 'payments'],
      reason: 'covers the web team too',
    });
    const [, update] = await auditOf(email);
    expect(update?.before).toEqual({ teams: ['payments'] });
    expect(update?.after).toEqual({ teams: ['payments', 'web'] });
    expect(update?.reason).toBe('covers the web team too');

    const reordered = await savePerson(ctx(), {
      email,
      displayName: 'Pat',
      role: 'viewer',
      teams: ['payments', 'web', 'web'],
      reason: 'same teams',
    });
    expect(reordered).toEqual({ created: false, changed: false });
    expect(await auditOf(email)).toHaveLength(2);
  });

  it('records a name change as the name alone, and a change of two fields as those two', async () => {
    const email = await addPerson('viewer', ['payments']);
    await savePerson(ctx(), {
      email,
      displayName: 'Pat Q',
      role: 'admin',
      teams: ['payments'],
      reason: 'promoted, full name',
    });
    const [, update] = await auditOf(email);
    expect(update?.before).toEqual({ displayName: 'Pat', role: 'viewer' });
    expect(update?.after).toEqual({ displayName: 'Pat Q', role: 'admin' });
  });

  it('a save that changes nothing writes nothing: no audit record, sessions kept, reason not needed', async () => {
    const email = await addPerson('responder', ['growth']);
    const versionBefore = await loadSessionVersion(database.db, email);
    const [rowBefore] = await database.db.select().from(people).where(eq(people.email, email));
    const result = await savePerson(ctx(), { email, displayName: 'Pat', role: 'responder', teams: ['growth'] });
    expect(result).toEqual({ created: false, changed: false });
    expect(await auditOf(email)).toHaveLength(1); // the create only
    expect(await loadSessionVersion(database.db, email)).toBe(versionBefore);
    const [rowAfter] = await database.db.select().from(people).where(eq(people.email, email));
    expect(rowAfter).toEqual(rowBefore);
  });

  it('a change needs a reason of 3 to 500 characters; without one nothing changes', async () => {
    const email = await addPerson('viewer', ['payments']);
    const change = { email, displayName: 'Pat', role: 'responder' as const, teams: ['payments'] };
    await expect(savePerson(ctx(), change)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { reason: ['a reason is required to change a person'] },
    });
    await expect(savePerson(ctx(), { ...change, reason: '  ok  ' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { reason: ['say why, in at least 3 characters'] },
    });
    await expect(savePerson(ctx(), { ...change, reason: 'x'.repeat(501) })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { reason: ['must be at most 500 characters'] },
    });
    const [row] = await database.db.select().from(people).where(eq(people.email, email));
    expect(row?.role).toBe('viewer');
    expect(await auditOf(email)).toHaveLength(1);

    await savePerson(ctx(), { ...change, reason: 'x'.repeat(500) });
    expect((await auditOf(email))[1]?.reason).toBe('x'.repeat(500));
  });
});

describe('people: the last admin', () => {
  // A database of its own: these tests count every admin in the table.
  const database = useTestDatabase({ maxConnections: 30 });
  const adminCount = async () =>
    (await database.db.select({ email: people.email }).from(people).where(eq(people.role, 'admin'))).length;
  const admins = async () =>
    (await database.db.select({ email: people.email }).from(people).where(eq(people.role, 'admin'))).map(
      (row) => row.email,
    );
  const demote = (by: string, email: string) =>
    savePerson(
      { db: database.db, actor: adminActor(by) },
      { email, displayName: 'Admin', role: 'viewer', reason: `demoted by ${by}` },
    );
  const promote = (by: string, email: string) =>
    savePerson(
      { db: database.db, actor: adminActor(by) },
      { email, displayName: 'Admin', role: 'admin', reason: `promoted by ${by}` },
    );

  it('cannot be demoted, by another admin or by themselves, until there is another admin', async () => {
    const solo = uniqueEmail('solo');
    await promote(admin.id, solo);
    expect(await admins()).toEqual([solo]);

    await expect(demote(admin.id, solo)).rejects.toMatchObject({
      code: 'STATE_CONFLICT',
      message: expect.stringContaining(`${solo} is the last admin`),
    });
    await expect(demote(solo, solo)).rejects.toMatchObject({ code: 'STATE_CONFLICT' });
    expect(await admins()).toEqual([solo]);
    const audit = await database.db.select().from(auditLog).where(eq(auditLog.targetId, solo));
    expect(audit.map((record) => record.action)).toEqual(['person.create']);

    // With a second admin, an admin may give up the role themselves.
    const second = uniqueEmail('second');
    await promote(solo, second);
    await expect(demote(solo, solo)).resolves.toEqual({ created: false, changed: true });
    expect(await admins()).toEqual([second]);
  });

  it('two admins demoting each other at once, round after round: exactly one wins, the other gets STATE_CONFLICT', async () => {
    let [survivor] = await admins();
    if (!survivor) throw new Error('the previous test leaves one admin');
    for (let round = 0; round < 10; round++) {
      const newcomer = uniqueEmail(`round-${round}`);
      await promote(survivor, newcomer);
      expect(await adminCount()).toBe(2);

      const outcomes = await Promise.allSettled([demote(survivor, newcomer), demote(newcomer, survivor)]);
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
      expect(won).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ code: 'STATE_CONFLICT' });
      const left = await admins();
      expect(left).toHaveLength(1);
      survivor = left[0] as string;
    }
  });

  it('a ring of 12 admins each demoting the next at once, on 12 connections, leaves exactly one admin', async () => {
    const [first] = await admins();
    if (!first) throw new Error('the previous test leaves one admin');
    const ring = [first];
    for (let index = 1; index < 12; index++) {
      const email = uniqueEmail(`ring-${index}`);
      await promote(first, email);
      ring.push(email);
    }
    expect(await adminCount()).toBe(12);

    const outcomes = await Promise.allSettled(
      ring.map((email, index) => demote(email, ring[(index + 1) % ring.length] as string)),
    );
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(11);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: 'STATE_CONFLICT' });
    expect(await adminCount()).toBe(1);
    // One audit record per demotion that happened, none for the refused one.
    const records = await database.db.select().from(auditLog).where(eq(auditLog.action, 'person.update'));
    const ringDemotions = records.filter((record) => ring.includes(record.targetId));
    expect(ringDemotions).toHaveLength(11);
    expect(ringDemotions.every((record) => JSON.stringify(record.after) === '{"role":"viewer"}')).toBe(true);
  });
});
