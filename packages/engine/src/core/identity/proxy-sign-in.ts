import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { people, type Role } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import type { Actor } from '../kernel/context';

/** The actor of what a sign-in through the SSO proxy writes: nobody clicked anything. */
const SIGN_IN: Actor = { type: 'system', id: 'sign-in' };

export interface ProxySignIn {
  /** Already parsed by the one e-mail rule. */
  email: string;
  /** The highest role AUTH_PROXY_ROLE_MAP gives the person's groups; undefined when it names none of them. */
  mappedRole: Role | undefined;
}

/**
 * What a sign-in through the SSO proxy changes, audit-logged in the caller's
 * transaction. The map is re-applied at every sign-in, so a person who leaves
 * the `sre` group loses the admin role it gave them:
 * - a person first seen is created with their mapped role, or viewer;
 * - a known person whose groups the map names gets the role it gives them,
 *   raised or lowered, whatever an admin set by hand before;
 * - a known person whose groups the map names not at all keeps the role
 *   Holdfast holds: there, an admin's change on People stands.
 * A role change raises the session version, as an admin's change does.
 */
export async function recordProxySignIn(tx: Executor, signIn: ProxySignIn): Promise<void> {
  const created = await tx
    .insert(people)
    .values({
      email: signIn.email,
      displayName: signIn.email.split('@')[0] ?? signIn.email,
      role: signIn.mappedRole ?? 'viewer',
      lastSeenAt: sql`now()`,
    })
    .onConflictDoNothing()
    .returning({ role: people.role });
  if (created[0]) {
    await writeAudit(tx, SIGN_IN, {
      action: 'person.create',
      targetType: 'person',
      targetId: signIn.email,
      reason: 'first sign-in through the SSO proxy',
      after: { role: created[0].role },
    });
    return;
  }
  if (signIn.mappedRole === undefined) return;

  // FOR UPDATE: two requests of the same person at once change the role, and audit it, once.
  const [before] = await tx
    .select({ role: people.role })
    .from(people)
    .where(eq(people.email, signIn.email))
    .for('update');
  if (!before || before.role === signIn.mappedRole) return;
  await tx
    .update(people)
    .set({ role: signIn.mappedRole, sessionVersion: sql`${people.sessionVersion} + 1` })
    .where(eq(people.email, signIn.email));
  await writeAudit(tx, SIGN_IN, {
    action: 'person.update',
    targetType: 'person',
    targetId: signIn.email,
    reason: `sign-in through the SSO proxy: AUTH_PROXY_ROLE_MAP gives their groups the ${signIn.mappedRole} role`,
    before: { role: before.role },
    after: { role: signIn.mappedRole },
  });
}
