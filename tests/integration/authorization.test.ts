import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  acquireSlot,
  clearHold,
  createApiToken,
  discardDeadLetter,
  finishRun,
  forceReleaseSlot,
  openHold,
  reassignHold,
  redriveDeadLetter,
  runStep,
  setKillSwitch,
  startRun,
  StepError,
  type Actor,
} from '../../lib/core';
import { auditLog } from '../../lib/db/schema';
import { useTestDatabase } from '../support/test-database';

const database = useTestDatabase();

type Person = Extract<Actor, { type: 'person' }>;
const viewer: Person = { type: 'person', id: 'viv@example.com', role: 'viewer', teams: ['payments'] };
const responder: Person = { type: 'person', id: 'rex@example.com', role: 'responder', teams: ['growth'] };
const admin: Person = { type: 'person', id: 'ada@example.com', role: 'admin', teams: ['platform'] };
const agent: Actor = { type: 'agent', id: 'worker', scopes: ['ingest'] };
const people = { viewer, responder, admin };

type Ownership = 'own' | 'same team' | 'other team';
function ownerFor(person: Person, ownership: Ownership): string {
  if (ownership === 'own') return `person:${person.id}`;
  if (ownership === 'same team') return `team:${person.teams[0]}`;
  return 'team:somebody-else';
}

async function auditCountBy(person: Person): Promise<number> {
  const [row] = await database.db.select({ n: sql<number>`count(*)::int` }).from(auditLog).where(eq(auditLog.actorId, person.id));
  return row?.n ?? 0;
}

async function openTaskHold(owner: string) {
  const { hold } = await openHold({ db: database.db, actor: agent }, {
    itemType: 'task', itemId: `task-${randomUUID()}`, reason: 'needs_approval', detail: 'approve the refund', owner,
  });
  return hold;
}

async function deadLetter() {
  const outcome = await runStep({ db: database.db }, {
    taskId: `task-${randomUUID()}`, agent: 'payments', owner: 'team:payments', step: 'charge', content: {},
  }, async () => { throw new StepError('permanent', 'card declined for good'); });
  const deadLetterId = 'deadLetterId' in outcome ? outcome.deadLetterId : undefined;
  if (!deadLetterId) throw new Error(`expected a dead letter, got ${JSON.stringify(outcome)}`);
  return deadLetterId;
}

async function staleLock() {
  const slot = `slot-${randomUUID()}`;
  const runKey = `run-${randomUUID()}`;
  await startRun({ db: database.db }, { runKey, taskId: `task-${randomUUID()}`, agent: 'publishing' });
  const lock = await acquireSlot({ db: database.db }, { slot, runKey, ttlMs: 60_000 });
  if (lock.outcome !== 'acquired') throw new Error('expected to acquire');
  await finishRun({ db: database.db }, { runKey, status: 'failed' });
  await database.sql`update slot_locks set expires_at = now() - interval '1 second' where slot = ${slot}`;
  return { slot, fencingToken: lock.fencingToken };
}

/** Each mutating action, run by `person`; resolves when it took effect. */
const mutatingActions: Record<string, (person: Person, ownership: Ownership) => Promise<unknown>> = {
  'hold.clear': async (person, ownership) => {
    const hold = await openTaskHold(ownerFor(person, ownership));
    return clearHold({ db: database.db, actor: person }, { holdId: hold.id, resolution: 'resume', note: 'approved' });
  },
  'hold.reassign': async (person, ownership) => {
    const hold = await openTaskHold(ownerFor(person, ownership));
    return reassignHold({ db: database.db, actor: person }, { holdId: hold.id, owner: 'team:finance', note: 'finance decides' });
  },
  'hold.open (manual)': (person) =>
    openHold({ db: database.db, actor: person }, { itemType: 'task', itemId: `task-${randomUUID()}`, reason: 'manual', detail: 'hold for review', owner: 'team:growth' }),
  'dead_letter.redrive': async (person) => redriveDeadLetter({ db: database.db, actor: person }, { deadLetterId: await deadLetter(), reason: 'fixed' }),
  'dead_letter.redrive_override': async (person) =>
    redriveDeadLetter({ db: database.db, actor: person }, { deadLetterId: await deadLetter(), reason: 'fixed, and worth one more try', overrideBrakes: true }),
  'dead_letter.discard': async (person) => discardDeadLetter({ db: database.db, actor: person }, { deadLetterId: await deadLetter(), reason: 'obsolete' }),
  'slot.force_release': async (person) => forceReleaseSlot({ db: database.db, actor: person }, { ...(await staleLock()), reason: 'run died' }),
  'kill_switch.set': async (person) => {
    await setKillSwitch({ db: database.db, actor: person }, { name: 'stale_lock_release', engaged: true, reason: 'drill' });
    await setKillSwitch({ db: database.db, actor: person }, { name: 'stale_lock_release', engaged: false, reason: 'drill over' });
  },
  'api_token.create': (person) => createApiToken({ db: database.db, actor: person }, { name: 'agent', scopes: ['read'] }),
};

const ownershipMatters = new Set(['hold.clear', 'hold.reassign']);

/** Who may: the matrix the product promises (see README, Roles). */
function expected(action: string, role: Person['role'], ownership: Ownership): boolean {
  if (ownershipMatters.has(action)) return role !== 'viewer' || ownership !== 'other team';
  if (action === 'kill_switch.set' || action === 'api_token.create' || action === 'dead_letter.redrive_override') return role === 'admin';
  return role !== 'viewer';
}

describe('authorization matrix (library level)', () => {
  for (const action of Object.keys(mutatingActions)) {
    for (const [role, person] of Object.entries(people)) {
      const ownerships: Ownership[] = ownershipMatters.has(action) ? ['own', 'same team', 'other team'] : ['other team'];
      for (const ownership of ownerships) {
        const allowed = expected(action, role as Person['role'], ownership);
        const label = ownershipMatters.has(action) ? `${action} by a ${role} on a hold of ${ownership === 'own' ? 'their own' : `their ${ownership}`}` : `${action} by a ${role}`;
        it(`${label}: ${allowed ? 'allowed' : 'refused'}`, async () => {
          const auditBefore = await auditCountBy(person);
          const run = mutatingActions[action]!(person, ownership);
          if (allowed) {
            await run;
            expect(await auditCountBy(person)).toBeGreaterThan(auditBefore);
          } else {
            await expect(run).rejects.toMatchObject({ code: 'FORBIDDEN' });
            expect(await auditCountBy(person)).toBe(auditBefore);
          }
        });
      }
    }
  }
});
