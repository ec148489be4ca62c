import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type ProxySettings, resolveProxyIdentity } from '../../../lib/auth/proxy-identity';
import {
  ensureProxyPerson,
  loadSessionPerson,
  loadSessionVersion,
  savePerson,
} from '../../../packages/engine/src/core';
import { auditLog, people } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';
import { aPerson } from '../../support/actors';

/**
 * Proxy mode re-applies AUTH_PROXY_ROLE_MAP at every sign-in (every request: the
 * proxy's headers are read each time, as lib/server/session.ts does): where the
 * map names a group of the person's, it decides their role, raised or lowered;
 * where it names none, the role an admin set in Holdfast stands.
 */
const database = useTestDatabase({ maxConnections: 12 });
const settings: ProxySettings = {
  secret: 'proxy-shared-secret-123',
  secretHeader: 'x-holdfast-proxy-secret',
  emailHeader: 'x-forwarded-email',
  groupsHeader: 'x-forwarded-groups',
  roleMap: 'sre=admin, oncall=responder, staff=viewer',
};
const someAdmin = aPerson('admin', 'root@example.com');

/** One request through the proxy: its headers, resolved and signed in the way the console does. */
async function signIn(email: string, groups: string) {
  const identity = resolveProxyIdentity(
    new Headers({
      [settings.secretHeader]: settings.secret,
      [settings.emailHeader]: email,
      [settings.groupsHeader]: groups,
    }),
    settings,
  );
  if (!identity.ok) throw new Error(`the proxy's headers were refused: ${identity.reason}`);
  return ensureProxyPerson(database.db, identity);
}

async function auditOf(email: string) {
  const records = await database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'person'), eq(auditLog.targetId, email)))
    .orderBy(auditLog.id);
  return records.map(({ action, actorType, actorId, before, after }) => ({
    action,
    actorType,
    actorId,
    before,
    after,
  }));
}

async function roleAndVersion(email: string) {
  const [row] = await database.db
    .select({ role: people.role, sessionVersion: people.sessionVersion })
    .from(people)
    .where(eq(people.email, email));
  return row;
}

describe('proxy sign-in re-applies the role map', () => {
  it('lowers a person the map made admin to viewer at their next sign-in once their groups map to viewer', async () => {
    const admin = await signIn('ada@example.com', 'sre');
    expect(admin.role).toBe('admin');
    const before = await roleAndVersion('ada@example.com');
    const oldSession = { email: 'ada@example.com', sessionVersion: before!.sessionVersion };

    // The proxy now says ada is only in staff (she left the sre group).
    const viewer = await signIn('ada@example.com', 'staff,eng');
    expect(viewer).toEqual({ type: 'person', id: 'ada@example.com', role: 'viewer', teams: [] });
    expect(await roleAndVersion('ada@example.com')).toEqual({
      role: 'viewer',
      sessionVersion: before!.sessionVersion + 1,
    });
    // What the request is then allowed: a viewer's rights, and any session signed before is over.
    await expect(
      savePerson({ db: database.db, actor: viewer }, { email: 'new@example.com', displayName: 'New', role: 'admin' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await loadSessionPerson(database.db, oldSession)).toBeUndefined();

    expect(await auditOf('ada@example.com')).toEqual([
      { action: 'person.create', actorType: 'system', actorId: 'sign-in', before: null, after: { role: 'admin' } },
      {
        action: 'person.update',
        actorType: 'system',
        actorId: 'sign-in',
        before: { role: 'admin' },
        after: { role: 'viewer' },
      },
    ]);
    // The next request with the same groups writes nothing.
    expect((await signIn('ada@example.com', 'staff,eng')).role).toBe('viewer');
    expect(await auditOf('ada@example.com')).toHaveLength(2);
  });

  it('keeps a role an admin set by hand while the map names none of the groups; once it names one, the map decides', async () => {
    expect((await signIn('lee@example.com', 'marketing')).role).toBe('viewer'); // first seen, no mapped group
    await savePerson(
      { db: database.db, actor: someAdmin },
      { email: 'lee@example.com', displayName: 'lee', role: 'admin', reason: 'runs the incident rota this quarter' },
    );
    expect((await signIn('lee@example.com', 'marketing')).role).toBe('admin');
    expect((await signIn('lee@example.com', '')).role).toBe('admin');
    expect((await auditOf('lee@example.com')).map((record) => `${record.action} by ${record.actorId}`)).toEqual([
      'person.create by sign-in',
      'person.update by root@example.com',
    ]);

    // Lee joins oncall, a group the map names: from then on the map sets the role.
    expect((await signIn('lee@example.com', 'marketing oncall')).role).toBe('responder');
    expect((await auditOf('lee@example.com')).at(-1)).toMatchObject({
      action: 'person.update',
      actorId: 'sign-in',
      before: { role: 'admin' },
      after: { role: 'responder' },
    });
  });

  it('changes the role once, with one audit record, when many requests of the person arrive at once', async () => {
    await Promise.all(Array.from({ length: 10 }, () => signIn('kim@example.com', 'sre')));
    const versionBefore = await loadSessionVersion(database.db, 'kim@example.com');
    const results = await Promise.all(Array.from({ length: 10 }, () => signIn('kim@example.com', 'oncall')));
    expect(results.map((person) => person.role)).toEqual(Array(10).fill('responder'));
    expect((await auditOf('kim@example.com')).map((record) => record.action)).toEqual([
      'person.create',
      'person.update',
    ]);
    expect(await loadSessionVersion(database.db, 'kim@example.com')).toBe(versionBefore! + 1);
  });
});
