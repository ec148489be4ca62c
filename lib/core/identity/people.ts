import { and, eq, sql } from 'drizzle-orm';
import { personEmail } from '../../auth/email';
import type { z } from 'zod';
import type { Executor } from '../../db/client';
import { people, teamMembers, teams, type Role } from '../../db/schema';
import { writeAudit } from '../audit';
import { authorize } from '../authorization';
import type { Actor, CoreContext } from '../context';
import { NotFoundError } from '../errors';
import { parseInput } from '../validation';
import { createPersonInput } from './people-input';

export { createPersonInput } from './people-input';

const email = personEmail;

/**
 * Adds a person (or updates their name, role and teams), audit-logged; admins only.
 * A changed role or team list raises the person's session version: sessions signed
 * before the change end, so nobody keeps a role they lost until their cookie expires.
 */
export async function savePerson(ctx: CoreContext, input: z.input<typeof createPersonInput>): Promise<void> {
  const actor = authorize(ctx, 'people.manage');
  const person = parseInput(createPersonInput, input);
  await ctx.db.transaction(async (tx) => {
    // FOR UPDATE: two admins saving the same person at once compare against the row they change.
    const [before] = await tx.select().from(people).where(eq(people.email, person.email)).for('update');
    const teamsBefore = before ? await teamsOf(tx, person.email) : [];
    const sessionsEnded =
      before !== undefined && (before.role !== person.role || !sameTeams(teamsBefore, person.teams));
    await tx
      .insert(people)
      .values({ email: person.email, displayName: person.displayName, role: person.role })
      .onConflictDoUpdate({
        target: people.email,
        set: {
          displayName: person.displayName,
          role: person.role,
          ...(sessionsEnded ? { sessionVersion: sql`${people.sessionVersion} + 1` } : {}),
        },
      });
    await setTeams(tx, person.email, person.teams);
    await writeAudit(tx, actor, {
      action: before ? 'person.update' : 'person.create',
      targetType: 'person',
      targetId: person.email,
      reason: 'people management',
      before: before ? { role: before.role, displayName: before.displayName, teams: teamsBefore } : null,
      after: { role: person.role, displayName: person.displayName, teams: person.teams, sessionsEnded },
    });
  });
}

async function teamsOf(db: Executor, personEmail: string): Promise<string[]> {
  const rows = await db.select({ team: teamMembers.team }).from(teamMembers).where(eq(teamMembers.email, personEmail));
  return rows.map((row) => row.team);
}

function sameTeams(a: string[], b: string[]): boolean {
  const left = [...new Set(a)].sort();
  const right = [...new Set(b)].sort();
  return left.length === right.length && left.every((team, index) => team === right[index]);
}

async function setTeams(db: Executor, personEmail: string, names: string[]): Promise<void> {
  await db.delete(teamMembers).where(eq(teamMembers.email, personEmail));
  for (const name of names) {
    await db.insert(teams).values({ name, displayName: name }).onConflictDoNothing();
    await db.insert(teamMembers).values({ team: name, email: personEmail }).onConflictDoNothing();
  }
}

/** The actor for a person, with role and teams, or undefined if they are not known. */
export async function loadPersonActor(
  db: Executor,
  personEmail: string,
): Promise<Extract<Actor, { type: 'person' }> | undefined> {
  const [person] = await db.select().from(people).where(eq(people.email, personEmail.toLowerCase()));
  if (!person) return undefined;
  const memberships = await db
    .select({ team: teamMembers.team })
    .from(teamMembers)
    .where(eq(teamMembers.email, person.email));
  return { type: 'person', id: person.email, role: person.role, teams: memberships.map((row) => row.team).sort() };
}

/** The person's current session version, for signing a new session; undefined if they are not known. */
export async function loadSessionVersion(db: Executor, personEmail: string): Promise<number | undefined> {
  const [row] = await db
    .select({ version: people.sessionVersion })
    .from(people)
    .where(eq(people.email, personEmail.toLowerCase()));
  return row?.version;
}

/**
 * The actor for a session cookie: only while the cookie's version is the person's
 * current one. Sign-out, "sign out everywhere" and a role or team change raise it.
 */
export async function loadSessionPerson(
  db: Executor,
  session: { email: string; sessionVersion: number },
): Promise<Extract<Actor, { type: 'person' }> | undefined> {
  const current = await loadSessionVersion(db, session.email);
  if (current === undefined || current !== session.sessionVersion) return undefined;
  return loadPersonActor(db, session.email);
}

/**
 * Ends every session of the person asking (sign-out): a copy of the cookie taken
 * earlier must not outlive it. Only a current session may do so; an old cookie
 * cannot sign its person out of the sessions they have now.
 */
export async function endOwnSessions(db: Executor, session: { email: string; sessionVersion: number }): Promise<void> {
  await db
    .update(people)
    .set({ sessionVersion: sql`${people.sessionVersion} + 1` })
    .where(and(eq(people.email, session.email.toLowerCase()), eq(people.sessionVersion, session.sessionVersion)));
}

/** "Sign out everywhere" for a person, by an admin: ends all their sessions, audit-logged. */
export async function endPersonSessions(ctx: CoreContext, input: { email: string }): Promise<void> {
  const actor = authorize(ctx, 'people.manage');
  const address = parseInput(email, input.email);
  await ctx.db.transaction(async (tx) => {
    const [after] = await tx
      .update(people)
      .set({ sessionVersion: sql`${people.sessionVersion} + 1` })
      .where(eq(people.email, address))
      .returning({ version: people.sessionVersion });
    if (!after) throw new NotFoundError(`No person ${address}`);
    await writeAudit(tx, actor, {
      action: 'person.sessions_end',
      targetType: 'person',
      targetId: address,
      reason: 'sign out everywhere',
      before: { sessionVersion: after.version - 1 },
      after: { sessionVersion: after.version },
    });
  });
}

/**
 * For sign-in through an SSO proxy: a person first seen is created with the
 * role their groups map to. Afterwards their role is managed in Holdfast.
 */
export async function ensureProxyPerson(
  db: Executor,
  identity: { email: string; role: Role },
): Promise<Extract<Actor, { type: 'person' }>> {
  const address = parseInput(email, identity.email);
  const created = await db
    .insert(people)
    .values({
      email: address,
      displayName: address.split('@')[0] ?? address,
      role: identity.role,
      lastSeenAt: sql`now()`,
    })
    .onConflictDoNothing()
    .returning({ email: people.email });
  if (created.length > 0) {
    await writeAudit(
      db,
      { type: 'system', id: 'sign-in' },
      {
        action: 'person.create',
        targetType: 'person',
        targetId: address,
        reason: 'first sign-in through the SSO proxy',
        after: { role: identity.role },
      },
    );
  }
  const actor = await loadPersonActor(db, address);
  if (!actor) throw new Error('ensureProxyPerson: the person vanished');
  return actor;
}

/** Everyone, for the demo sign-in page and people management. */
export async function listPeople(db: Executor) {
  const rows = await db.select().from(people).orderBy(people.role, people.email);
  const memberships = await db.select().from(teamMembers);
  return rows.map((person) => ({
    ...person,
    teams: memberships
      .filter((row) => row.email === person.email)
      .map((row) => row.team)
      .sort(),
  }));
}
