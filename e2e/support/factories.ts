import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  acquireSlot,
  createApiToken,
  ensureTaskBudget,
  finishRun,
  openHold,
  runStep,
  savePerson,
  StepError,
  startRun,
  timeBucket,
  type Actor,
  type OpenHoldInput,
} from '../../packages/engine/src/core';
import type { DatabaseConnection } from '../../packages/engine/src/db/client';
import type { Role } from '../../packages/engine/src/db/schema';
import type { Page } from '@playwright/test';

/**
 * Rows a test changes, made for that test alone through the product's own library
 * (the functions the server and the agents call), each under an id no other test,
 * repeat or retry shares. A test may read the seeded demo data; it changes only
 * what it made here, so the suite passes in any order.
 */

/** `label-` and 8 random hex digits: lowercase, so it is also a valid team name. */
export function uniqueId(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

/** A team no other test uses (holds it owns are `team:<name>`). */
export function uniqueTeam(): string {
  return uniqueId('e2e-team');
}

/** The seeded admin, acting where the product lets only an admin act (people, tokens). */
const admin: Actor = { type: 'person', id: 'ada@holdfast.demo', role: 'admin', teams: ['platform'] };

export interface FactoryPerson {
  email: string;
  displayName: string;
  role: Role;
  teams: string[];
}

/** A person of this role, by default in one team of their own; sign in as them with `signInAs(page, person)`. */
export async function createPerson(
  database: DatabaseConnection,
  options: { role: Role; teams?: string[] },
): Promise<FactoryPerson> {
  const handle = uniqueId(`e2e-${options.role}`);
  const person = {
    email: `${handle}@holdfast.test`,
    displayName: `E2E ${handle}`,
    role: options.role,
    teams: options.teams ?? [uniqueTeam()],
  };
  await savePerson({ db: database.db, actor: admin }, person);
  return person;
}

/** An open hold on a task of its own (a hold parks an item that exists, so the task's budget comes first). */
export async function createHold(
  database: DatabaseConnection,
  overrides: Partial<Omit<OpenHoldInput, 'itemType' | 'itemId'>> & { agent?: string } = {},
): Promise<{ itemId: string; holdId: number; owner: string }> {
  const { agent = 'e2e-agent', ...hold } = overrides;
  const owner = hold.owner ?? 'team:platform';
  const itemId = uniqueId('e2e-hold');
  // A team the test made up is made known, as a team people are in would be: an agent naming an
  // unknown team gets the default owner instead (packages/engine/src/core/holds/known-owner.ts).
  if (owner.startsWith('team:')) {
    const team = owner.slice('team:'.length);
    await database.db.execute(
      sql`insert into teams (name, display_name) values (${team}, ${team}) on conflict do nothing`,
    );
  }
  await ensureTaskBudget(database.db, { taskId: itemId, agent, owner });
  const opened = await openHold(
    { db: database.db, actor: { type: 'agent', id: agent, scopes: ['ingest'] } },
    {
      itemType: 'task',
      itemId,
      reason: 'policy_blocked',
      detail: 'Sending blocked by the policy engine',
      ...hold,
      owner,
    },
  );
  return { itemId, holdId: opened.hold.id, owner };
}

/** A dead letter made the real way: a step that fails permanently under runStep. */
export async function createDeadLetter(
  database: DatabaseConnection,
  options: { queue: string; errorText: string; content?: Record<string, unknown> },
): Promise<number> {
  const outcome = await runStep(
    { db: database.db },
    {
      taskId: uniqueId(options.queue),
      agent: 'publishing',
      step: 'publish',
      owner: 'team:web',
      queue: options.queue,
      content: options.content ?? { page: randomUUID() },
    },
    async () => {
      throw new StepError('permanent', options.errorText);
    },
  );
  const deadLetterId = 'deadLetterId' in outcome ? outcome.deadLetterId : undefined;
  if (!deadLetterId) throw new Error(`expected a dead letter, got ${JSON.stringify(outcome)}`);
  return deadLetterId;
}

/** A slot lock past its TTL, held by a run of its own: finished unless `runStillLive`. */
export async function createStaleLock(
  database: DatabaseConnection,
  options: { runStillLive?: boolean } = {},
): Promise<{ slot: string; runKey: string }> {
  const slot = `publish:${uniqueId('e2e')}`;
  const runKey = uniqueId('run');
  await startRun({ db: database.db }, { runKey, taskId: uniqueId('task'), agent: 'publishing' });
  const lock = await acquireSlot({ db: database.db }, { slot, runKey, ttlMs: 60_000 });
  if (lock.outcome !== 'acquired') throw new Error(`expected to acquire ${slot}, got ${lock.outcome}`);
  if (!options.runStillLive) await finishRun({ db: database.db }, { runKey, status: 'failed' });
  // Waiting out a TTL would slow the suite; the lock's own expiry is moved into the past instead.
  await database.db.execute(sql`update slot_locks set expires_at = now() - interval '5 minutes' where slot = ${slot}`);
  // A lock a person may release, the server's sweeper may release too (same guards): it is kept off so
  // that the test, not a sweep landing mid-test, decides when the lock goes.
  if (!options.runStillLive) await keepTheSweeperOffStaleLocks(database);
  return { slot, runKey };
}

const STALE_LOCK_SWEEP = { job: 'release_stale_slots', periodMs: 5 * 60_000 } as const;

/**
 * Takes the stale-lock sweep's lease for its current and next bucket (what a sweep
 * already running in another instance would hold), so the server skips those sweeps.
 * It expires by itself after ten minutes, longer than any test runs.
 */
async function keepTheSweeperOffStaleLocks(database: DatabaseConnection): Promise<void> {
  const now = Date.now();
  for (const moment of [now, now + STALE_LOCK_SWEEP.periodMs]) {
    const bucket = timeBucket(new Date(moment), STALE_LOCK_SWEEP.periodMs);
    await database.db.execute(sql`
      insert into leases (job, bucket, holder, expires_at)
      values (${STALE_LOCK_SWEEP.job}, ${bucket}, 'browser tests', now() + interval '10 minutes')
      on conflict do nothing`);
  }
}

/** An API token of its own, created by the seeded admin; the secret is returned once, as the product does. */
export async function createToken(
  database: DatabaseConnection,
  options: { scopes: ('ingest' | 'read')[]; allowedAgents?: string[]; allowedQueues?: string[] },
): Promise<{ name: string; token: string; tokenId: number }> {
  const name = uniqueId('e2e-token');
  const { token, record } = await createApiToken({ db: database.db, actor: admin }, { name, ...options });
  return { name, token, tokenId: record.id };
}

/** Force-releases a lock from its row on the Locks page: the reason, the button, then the dialog's confirmation. */
export async function forceReleaseFromRow(page: Page, slot: string, reason: string): Promise<void> {
  const row = page.getByTestId(`lock-row-${slot}`);
  await row.getByLabel('Reason for the release').fill(reason);
  await row.getByRole('button', { name: 'Force release…' }).click();
  await page
    .getByRole('dialog', { name: `Force release ${slot}?` })
    .getByRole('button', { name: 'Confirm release' })
    .click();
}
