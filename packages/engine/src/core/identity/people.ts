import { and, eq, sql } from 'drizzle-orm';
import { personEmail } from './email';
import type { z } from 'zod';
import type { Executor } from '../../db/client';
import { people, teamMembers, teams, type Role } from '../../db/schema';
import { writeAudit } from '../audit/audit-log';
import { authorize } from './authorization';
import type { Actor, CoreContext } from '../kernel/context';
import { InvalidInputError, NotFoundError, StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import { savePersonInput } from './people-input';
import { recordProxySignIn } from './proxy-sign-in';

export { createPersonInput, personChangeReason, savePersonInput } from './people-input';

const email = personEmail;

export interface SavePersonResult {
  created: boolean;
  /** False when the save asked for what the person already had: nothing was written, nothing audited. */
  changed: boolean;
}

/**
 * Adds a person, or changes their name, role and teams; admins only. The audit
 * record holds exactly the fields that changed (before and after) and the
 * reason, which a change of an existing person must give. A changed role or team
 * list raises the person's session version: sessions signed before the change
 * end, so nobody keeps a role they lost until their cookie expires. The last
 * admin cannot lose the role: someone must still be able to manage people.
 */
export async function savePerson(ctx: CoreContext, input: z.input<typeof savePersonInput>): Promise<SavePersonResult> {
  const actor = authorize(ctx, 'people.manage');
  const { reason, ...person } = parseInput(savePersonInput, input);
  const wantedTeams = normalizedTeams(person.teams);
  return ctx.db.transaction(async (tx) => {
    // Any save that may take the admin role away locks every admin row first, always in
    // e-mail order: two admins demoting each other at once then run one after the
    // other, and the second counts the admins the first one left (no deadlock either,
    // since the admin rows are locked before the target's own row).
    const admins = person.role === 'admin' ? undefined : await lockAdmins(tx);
    // FOR UPDATE: two admins saving the same person at once compare against the row they change.
    const [before] = await tx.select().from(people).where(eq(people.email, person.email)).for('update');
    if (!before) {
      const inserted = await tx
        .insert(people)
        .values({ email: person.email, displayName: person.displayName, role: person.role })
        .onConflictDoNothing()
        .returning({ email: people.email });
      // Added by someone else since the read above (a double click, two admins at once).
      if (inserted.length === 0) return addedMeanwhile(tx, { ...person, teams: wantedTeams });
      await setTeams(tx, person.email, wantedTeams);
      await writeAudit(tx, actor, {
        action: 'person.create',
        targetType: 'person',
        targetId: person.email,
        reason: reason ?? null,
        after: { role: person.role, displayName: person.displayName, teams: wantedTeams },
      });
      return { created: true, changed: true };
    }

    const teamsBefore = normalizedTeams(await teamsOf(tx, person.email));
    const diff = changedFields(
      { role: before.role, displayName: before.displayName, teams: teamsBefore },
      { role: person.role, displayName: person.displayName, teams: wantedTeams },
    );
    if (!diff) return { created: false, changed: false };
    if (!reason) {
      throw new InvalidInputError('Say why this person changes: the reason is kept in the audit log.', {
        reason: ['a reason is required to change a person'],
      });
    }
    if (before.role === 'admin' && person.role !== 'admin' && !admins?.some((email) => email !== person.email)) {
      throw new StateConflictError(
        `${person.email} is the last admin and keeps the role: make someone else an admin first, so people, tokens and retry pools can still be managed.`,
      );
    }

    const sessionsEnd = 'role' in diff.after || 'teams' in diff.after;
    await tx
      .update(people)
      .set({
        displayName: person.displayName,
        role: person.role,
        ...(sessionsEnd ? { sessionVersion: sql`${people.sessionVersion} + 1` } : {}),
      })
      .where(eq(people.email, person.email));
    if ('teams' in diff.after) await setTeams(tx, person.email, wantedTeams);
    await writeAudit(tx, actor, {
      action: 'person.update',
      targetType: 'person',
      targetId: person.email,
      reason,
      before: diff.before,
      after: diff.after,
    });
    return { created: false, changed: true };
  });
}

/** The outcome when the person appeared under our feet: already done if as asked, a conflict if not. */
async function addedMeanwhile(tx: Executor, wanted: PersonFields & { email: string }): Promise<SavePersonResult> {
  const [now] = await tx.select().from(people).where(eq(people.email, wanted.email));
  const teamsNow = normalizedTeams(await teamsOf(tx, wanted.email));
  if (now && !changedFields({ role: now.role, displayName: now.displayName, teams: teamsNow }, wanted))
    return { created: false, changed: false };
  throw new StateConflictError(`${wanted.email} was added by someone else just now: reload to see them.`);
}

interface PersonFields {
  role: Role;
  displayName: string;
  teams: string[];
}

/** Only the fields whose value differs, before and after; undefined when none does. */
function changedFields(
  before: PersonFields,
  after: PersonFields,
): { before: Partial<PersonFields>; after: Partial<PersonFields> } | undefined {
  const was: Partial<PersonFields> = {};
  const now: Partial<PersonFields> = {};
  if (before.role !== after.role) [was.role, now.role] = [before.role, after.role];
  if (before.displayName !== after.displayName)
    [was.displayName, now.displayName] = [before.displayName, after.displayName];
  if (before.teams.join('\n') !== after.teams.join('\n')) [was.teams, now.teams] = [before.teams, after.teams];
  return Object.keys(now).length === 0 ? undefined : { before: was, after: now };
}

/** Every admin's e-mail, each row locked until the transaction ends. */
async function lockAdmins(tx: Executor): Promise<string[]> {
  const rows = await tx
    .select({ email: people.email })
    .from(people)
    .where(eq(people.role, 'admin'))
    .orderBy(people.email)
    .for('update');
  return rows.map((row) => row.email);
}

/** A team list as stored and compared: each name once, sorted. */
function normalizedTeams(names: string[]): string[] {
  return [...new Set(names)].sort();
}

async function teamsOf(db: Executor, personEmail: string): Promise<string[]> {
  const rows = await db.select({ team: teamMembers.team }).from(teamMembers).where(eq(teamMembers.email, personEmail));
  return rows.map((row) => row.team);
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
 * For sign-in through an SSO proxy, which happens on every request: the person,
 * created on first sight, with the role AUTH_PROXY_ROLE_MAP gives their groups
 * re-applied (the rule is in proxy-sign-in.ts). Writes only when something changes.
 */
export async function ensureProxyPerson(
  db: Executor,
  identity: { email: string; mappedRole: Role | undefined },
): Promise<Extract<Actor, { type: 'person' }>> {
  const address = parseInput(email, identity.email);
  const known = await loadPersonActor(db, address);
  if (known && (identity.mappedRole === undefined || identity.mappedRole === known.role)) return known;
  return db.transaction(async (tx) => {
    await recordProxySignIn(tx, { email: address, mappedRole: identity.mappedRole });
    const actor = await loadPersonActor(tx, address);
    if (!actor) throw new Error('ensureProxyPerson: the person vanished');
    return actor;
  });
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
