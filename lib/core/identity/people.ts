import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client';
import { people, roles, teamMembers, teams, type Role } from '../../db/schema';
import { writeAudit } from '../audit';
import { authorize } from '../authorization';
import type { Actor, CoreContext } from '../context';
import { parseInput } from '../validation';

const email = z.string().trim().toLowerCase().email('must be an email address').max(200);
const teamName = z.string().trim().regex(/^[a-z0-9][a-z0-9_-]*$/, 'use lowercase letters, digits, _ and -').max(60);

export const createPersonInput = z.strictObject({
  email,
  displayName: z.string().trim().min(1).max(100),
  role: z.enum(roles),
  teams: z.array(teamName).max(50).default([]),
});

/** Adds a person (or updates their name, role and teams), audit-logged; admins only. */
export async function savePerson(ctx: CoreContext, input: z.input<typeof createPersonInput>): Promise<void> {
  const actor = authorize(ctx, 'people.manage');
  const person = parseInput(createPersonInput, input);
  await ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(people).where(eq(people.email, person.email));
    await tx
      .insert(people)
      .values({ email: person.email, displayName: person.displayName, role: person.role })
      .onConflictDoUpdate({ target: people.email, set: { displayName: person.displayName, role: person.role } });
    await setTeams(tx, person.email, person.teams);
    await writeAudit(tx, actor, {
      action: before ? 'person.update' : 'person.create',
      targetType: 'person',
      targetId: person.email,
      reason: 'people management',
      before: before ? { role: before.role, displayName: before.displayName } : null,
      after: { role: person.role, displayName: person.displayName, teams: person.teams },
    });
  });
}

async function setTeams(db: Executor, personEmail: string, names: string[]): Promise<void> {
  await db.delete(teamMembers).where(eq(teamMembers.email, personEmail));
  for (const name of names) {
    await db.insert(teams).values({ name, displayName: name }).onConflictDoNothing();
    await db.insert(teamMembers).values({ team: name, email: personEmail }).onConflictDoNothing();
  }
}

/** The actor for a person, with role and teams, or undefined if they are not known. */
export async function loadPersonActor(db: Executor, personEmail: string): Promise<Extract<Actor, { type: 'person' }> | undefined> {
  const [person] = await db.select().from(people).where(eq(people.email, personEmail.toLowerCase()));
  if (!person) return undefined;
  const memberships = await db.select({ team: teamMembers.team }).from(teamMembers).where(eq(teamMembers.email, person.email));
  return { type: 'person', id: person.email, role: person.role, teams: memberships.map((row) => row.team).sort() };
}

/**
 * For sign-in through an SSO proxy: a person first seen is created with the
 * role their groups map to. Afterwards their role is managed in Holdfast.
 */
export async function ensureProxyPerson(db: Executor, identity: { email: string; role: Role }): Promise<Extract<Actor, { type: 'person' }>> {
  const address = parseInput(email, identity.email);
  const created = await db
    .insert(people)
    .values({ email: address, displayName: address.split('@')[0] ?? address, role: identity.role, lastSeenAt: sql`now()` })
    .onConflictDoNothing()
    .returning({ email: people.email });
  if (created.length > 0) {
    await writeAudit(db, { type: 'system', id: 'sign-in' }, {
      action: 'person.create',
      targetType: 'person',
      targetId: address,
      reason: 'first sign-in through the SSO proxy',
      after: { role: identity.role },
    });
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
    teams: memberships.filter((row) => row.email === person.email).map((row) => row.team).sort(),
  }));
}
