import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  acquireSlot,
  claimKey,
  clearHold,
  createApiToken,
  deadLetterTask,
  discardDeadLetter,
  ensureTaskBudget,
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

/** A task that exists: a hold parks an existing item. */
async function aTask(): Promise<string> {
  const taskId = `task-${randomUUID()}`;
  await ensureTaskBudget(database.db, { taskId, agent: 'payments', owner: 'team:payments' });
  return taskId;
}

async function openTaskHold(owner: string) {
  const { hold } = await openHold({ db: database.db, actor: agent }, {
    itemType: 'task', itemId: await aTask(), reason: 'needs_approval', detail: 'approve the refund', owner,
  });
  return hold;
}

/** A dead letter's hold, owned by `owner`. */
async function openDeadLetterHold(owner: string) {
  const { hold } = await deadLetterTask(database.db, agent, {
    taskId: `task-${randomUUID()}`, agent: 'payments', step: 'charge', queue: 'payments', payload: {}, reason: 'permanent_error',
    errorClass: 'permanent', lastError: 'card declined', attempts: 1, spendMicros: 0, owner,
  });
  return hold;
}

/** An uncertain key's hold (its claim expired, its downstream cannot deduplicate), owned by `owner`. */
async function openKeyHold(owner: string) {
  const key = `key-${randomUUID()}`;
  await claimKey({ db: database.db }, { key, requestHash: 'h', downstreamIdempotent: false });
  await database.sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${key}`;
  const { hold } = await openHold({ db: database.db, actor: agent }, { itemType: 'key', itemId: key, reason: 'uncertain_outcome', detail: 'check', owner });
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
  // Clearing a dead letter's or a key's hold is that item's own action too (a redrive, a discard, settling a key).
  'hold.clear (dead letter: resume = redrive)': async (person, ownership) => {
    const hold = await openDeadLetterHold(ownerFor(person, ownership));
    return clearHold({ db: database.db, actor: person }, { holdId: hold.id, resolution: 'resume', note: 'fixed' });
  },
  'hold.clear (dead letter: discard)': async (person, ownership) => {
    const hold = await openDeadLetterHold(ownerFor(person, ownership));
    return clearHold({ db: database.db, actor: person }, { holdId: hold.id, resolution: 'discard', note: 'obsolete' });
  },
  'hold.clear (key: release)': async (person, ownership) => {
    const hold = await openKeyHold(ownerFor(person, ownership));
    return clearHold({ db: database.db, actor: person }, { holdId: hold.id, resolution: 'resume', note: 'never reached the provider' });
  },
  'hold.clear (key: mark done)': async (person, ownership) => {
    const hold = await openKeyHold(ownerFor(person, ownership));
    return clearHold({ db: database.db, actor: person }, { holdId: hold.id, resolution: 'discard', note: 'the provider has it' });
  },
  'hold.open (manual)': async (person) =>
    openHold({ db: database.db, actor: person }, { itemType: 'task', itemId: await aTask(), reason: 'manual', detail: 'hold for review', owner: 'team:growth' }),
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

/** Holds whose resolution is the item's own action: owning the hold is not enough, the role decides. */
const itemActionHolds = new Set(['hold.clear (dead letter: resume = redrive)', 'hold.clear (dead letter: discard)', 'hold.clear (key: release)', 'hold.clear (key: mark done)']);
const ownershipMatters = new Set(['hold.clear', 'hold.reassign', ...itemActionHolds]);

/** Who may: the matrix the product promises (see README, Roles). */
function expected(action: string, role: Person['role'], ownership: Ownership): boolean {
  if (itemActionHolds.has(action)) return role !== 'viewer';
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
