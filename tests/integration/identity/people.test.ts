import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  endOwnSessions,
  endPersonSessions,
  ensureProxyPerson,
  listPeople,
  loadPersonActor,
  loadSessionPerson,
  loadSessionVersion,
  savePerson,
  type Actor,
} from '../../../packages/engine/src/core';
import { auditLog, people } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { admin } from '../../support/actors';

const database = useTestDatabase();

describe('people', () => {
  it('creates a person first seen through the proxy with the mapped role, once', async () => {
    const first = await ensureProxyPerson(database.db, { email: 'Sam@Example.com', mappedRole: 'responder' });
    expect(first).toEqual({ type: 'person', id: 'sam@example.com', role: 'responder', teams: [] });
    // A later sign-in with the same groups changes nothing (proxy-sign-in.test.ts: when the groups change).
    expect(await ensureProxyPerson(database.db, { email: 'sam@example.com', mappedRole: 'responder' })).toEqual(first);
    const created = await database.db.select().from(auditLog).where(eq(auditLog.targetId, 'sam@example.com'));
    expect(created.map((record) => record.action)).toEqual(['person.create']);
  });

  it('lets admins save people with teams, and nobody else', async () => {
    await savePerson(
      { db: database.db, actor: admin },
      { email: 'lee@example.com', displayName: 'Lee', role: 'viewer', teams: ['payments', 'web'] },
    );
    expect(await loadPersonActor(database.db, 'lee@example.com')).toEqual({
      type: 'person',
      id: 'lee@example.com',
      role: 'viewer',
      teams: ['payments', 'web'],
    });
    expect((await listPeople(database.db)).find((person) => person.email === 'lee@example.com')?.teams).toEqual([
      'payments',
      'web',
    ]);

    const viewer: Actor = { type: 'person', id: 'lee@example.com', role: 'viewer', teams: ['payments'] };
    await expect(
      savePerson(
        { db: database.db, actor: viewer },
        { email: 'lee@example.com', displayName: 'Lee', role: 'admin', reason: 'promote myself' },
      ),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const [lee] = await database.db.select().from(people).where(eq(people.email, 'lee@example.com'));
    expect(lee?.role).toBe('viewer');
  });

  it('refuses a malformed email or an unknown role', async () => {
    await expect(
      savePerson({ db: database.db, actor: admin }, { email: 'not-an-email', displayName: 'X', role: 'viewer' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(
      savePerson(
        { db: database.db, actor: admin },
        { email: 'x@example.com', displayName: 'X', role: 'root' as 'admin' },
      ),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it("takes the SSO proxy's address only if people management would (one e-mail rule)", async () => {
    // `a@b` passed the proxy's own check before and then failed here: a 500 on every request.
    await expect(ensureProxyPerson(database.db, { email: 'a@b', mappedRole: 'viewer' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  describe('session versions', () => {
    const session = async (email: string) => ({
      email,
      sessionVersion: (await loadSessionVersion(database.db, email)) ?? -1,
    });

    it('sign-out ends every session of the person, a copy of the cookie included, and an old cookie cannot sign out the new ones', async () => {
      await savePerson(
        { db: database.db, actor: admin },
        { email: 'kim@example.com', displayName: 'Kim', role: 'responder' },
      );
      const laptop = await session('kim@example.com');
      const copied = { ...laptop };
      expect(await loadSessionPerson(database.db, copied)).toMatchObject({ id: 'kim@example.com' });

      await endOwnSessions(database.db, laptop);
      expect(await loadSessionPerson(database.db, copied)).toBeUndefined();

      const phone = await session('kim@example.com');
      expect(phone.sessionVersion).toBe(laptop.sessionVersion + 1);
      await endOwnSessions(database.db, copied); // the stale copy signing out does nothing
      expect(await loadSessionPerson(database.db, phone)).toMatchObject({ id: 'kim@example.com' });
    });

    it("a role or team change ends the person's sessions; a new display name does not", async () => {
      // Another admin, so that Max (an admin below) is not the last one and may become a viewer.
      await savePerson({ db: database.db, actor: admin }, { email: admin.id, displayName: 'Ada', role: 'admin' });
      await savePerson(
        { db: database.db, actor: admin },
        { email: 'max@example.com', displayName: 'Max', role: 'admin', teams: ['web'] },
      );
      let current = await session('max@example.com');
      await savePerson(
        { db: database.db, actor: admin },
        { email: 'max@example.com', displayName: 'Max M', role: 'admin', teams: ['web'], reason: 'new name' },
      );
      expect(await loadSessionPerson(database.db, current)).toMatchObject({ role: 'admin' });

      await savePerson(
        { db: database.db, actor: admin },
        { email: 'max@example.com', displayName: 'Max M', role: 'viewer', teams: ['web'], reason: 'left on-call' },
      );
      expect(await loadSessionPerson(database.db, current)).toBeUndefined();

      current = await session('max@example.com');
      await savePerson(
        { db: database.db, actor: admin },
        {
          email: 'max@example.com',
          displayName: 'Max M',
          role: 'viewer',
          teams: ['web', 'payments'],
          reason: 'joined payments',
        },
      );
      expect(await loadSessionPerson(database.db, current)).toBeUndefined();
      expect(await loadSessionPerson(database.db, await session('max@example.com'))).toMatchObject({
        role: 'viewer',
        teams: ['payments', 'web'],
      });
    });

    it('"sign out everywhere" is for admins, ends every session and is audit-logged', async () => {
      await savePerson(
        { db: database.db, actor: admin },
        { email: 'pat@example.com', displayName: 'Pat', role: 'viewer' },
      );
      const before = await session('pat@example.com');
      const viewer: Actor = { type: 'person', id: 'pat@example.com', role: 'viewer', teams: [] };
      await expect(
        endPersonSessions({ db: database.db, actor: viewer }, { email: 'pat@example.com' }),
      ).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect(await loadSessionPerson(database.db, before)).toBeDefined();

      await endPersonSessions({ db: database.db, actor: admin }, { email: 'Pat@Example.com' });
      expect(await loadSessionPerson(database.db, before)).toBeUndefined();
      const records = await database.db.select().from(auditLog).where(eq(auditLog.targetId, 'pat@example.com'));
      expect(records.map((record) => record.action)).toContain('person.sessions_end');
      await expect(
        endPersonSessions({ db: database.db, actor: admin }, { email: 'nobody@example.com' }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });
});
