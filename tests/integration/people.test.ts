import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ensureProxyPerson, listPeople, loadPersonActor, savePerson, type Actor } from '../../lib/core';
import { auditLog, people } from '../../lib/db/schema';
import { useTestDatabase } from '../support/test-database';

const database = useTestDatabase();
const admin: Actor = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };

describe('people', () => {
  it('creates a person first seen through the proxy with the mapped role, once', async () => {
    const first = await ensureProxyPerson(database.db, { email: 'Sam@Example.com', role: 'responder' });
    expect(first).toEqual({ type: 'person', id: 'sam@example.com', role: 'responder', teams: [] });
    // Later sign-ins keep the role Holdfast holds, whatever the groups say now.
    expect(await ensureProxyPerson(database.db, { email: 'sam@example.com', role: 'admin' })).toMatchObject({ role: 'responder' });
    const created = await database.db.select().from(auditLog).where(eq(auditLog.targetId, 'sam@example.com'));
    expect(created.map((record) => record.action)).toEqual(['person.create']);
  });

  it('lets admins save people with teams, and nobody else', async () => {
    await savePerson({ db: database.db, actor: admin }, { email: 'lee@example.com', displayName: 'Lee', role: 'viewer', teams: ['payments', 'web'] });
    expect(await loadPersonActor(database.db, 'lee@example.com')).toEqual({ type: 'person', id: 'lee@example.com', role: 'viewer', teams: ['payments', 'web'] });
    expect((await listPeople(database.db)).find((person) => person.email === 'lee@example.com')?.teams).toEqual(['payments', 'web']);

    const viewer: Actor = { type: 'person', id: 'lee@example.com', role: 'viewer', teams: ['payments'] };
    await expect(savePerson({ db: database.db, actor: viewer }, { email: 'lee@example.com', displayName: 'Lee', role: 'admin' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const [lee] = await database.db.select().from(people).where(eq(people.email, 'lee@example.com'));
    expect(lee?.role).toBe('viewer');
  });

  it('refuses a malformed email or an unknown role', async () => {
    await expect(savePerson({ db: database.db, actor: admin }, { email: 'not-an-email', displayName: 'X', role: 'viewer' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(savePerson({ db: database.db, actor: admin }, { email: 'x@example.com', displayName: 'X', role: 'root' as 'admin' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
