import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  acquireSlot,
  claimKey,
  clearHold,
  createApiToken,
  deadLetterTask,
  deleteRetryPool,
  discardDeadLetter,
  ensureTaskBudget,
  finishRun,
  forceReleaseSlot,
  openHold,
  reassignHold,
  redriveDeadLetter,
  runStep,
  saveRetryPool,
  setKillSwitch,
  startRun,
  StepError,
  type Actor,
} from '../../../packages/engine/src/core';
import {
  createAlertChannel,
  deleteAlertChannel,
  sendTestAlert,
  setAlertChannelEnabled,
} from '../../../packages/engine/src/alerts/manage-channels';
import { saveAlertRule } from '../../../packages/engine/src/alerts/manage-rules';
import {
  deletePriceOverride,
  savePriceOverride,
  saveRefusedStatuses,
} from '../../../packages/engine/src/core/pricing/manage-pricing';
import { saveErrorClassRules } from '../../../packages/engine/src/traces/manage-error-class-rules';
import { deleteMcpToolControl, saveMcpToolControl } from '../../../packages/engine/src/core/mcp/tool-controls';
import { deleteSpendBudget, saveSpendBudget } from '../../../packages/engine/src/core/budgets/spend-budgets';
import { alertChannels, auditLog, retryPools } from '../../../packages/engine/src/db/schema';
import { addKnownOwners } from '../../support/known-owners';
import { useTestDatabase } from '../../support/test-database';
import { anAgent } from '../../support/actors';
import { aDeadLetterInput } from '../../support/dead-letter-input';
import { openTaskHold } from '../../support/task-holds';

const database = useTestDatabase();
// The owners its agents name are known (an unknown one would be given the default owner).
beforeAll(() =>
  addKnownOwners(database.db, [
    'person:viv@example.com',
    'person:rex@example.com',
    'person:ada@example.com',
    'team:payments',
    'team:growth',
    'team:platform',
  ]),
);

type Person = Extract<Actor, { type: 'person' }>;
const viewer: Person = { type: 'person', id: 'viv@example.com', role: 'viewer', teams: ['payments'] };
const responder: Person = { type: 'person', id: 'rex@example.com', role: 'responder', teams: ['growth'] };
const admin: Person = { type: 'person', id: 'ada@example.com', role: 'admin', teams: ['platform'] };
const agent = anAgent('worker');
const people = { viewer, responder, admin };

type Ownership = 'own' | 'same team' | 'other team';
function ownerFor(person: Person, ownership: Ownership): string {
  if (ownership === 'own') return `person:${person.id}`;
  if (ownership === 'same team') return `team:${person.teams[0]}`;
  return 'team:somebody-else';
}

async function auditCountBy(person: Person): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(auditLog)
    .where(eq(auditLog.actorId, person.id));
  return row?.n ?? 0;
}

/** A task that exists: a hold parks an existing item. */
async function aTask(): Promise<string> {
  const taskId = `task-${randomUUID()}`;
  await ensureTaskBudget(database.db, { taskId, agent: 'payments', owner: 'team:payments' });
  return taskId;
}

/** A dead letter's hold, owned by `owner`. */
async function openDeadLetterHold(owner: string) {
  const { hold } = await deadLetterTask(database.db, agent, aDeadLetterInput({ owner }));
  return hold;
}

/** An uncertain key's hold (its claim expired, its downstream cannot deduplicate), owned by `owner`. */
async function openKeyHold(owner: string) {
  // Named as stored (raw: prefix): the test moves the claim by hand, by its stored name.
  const key = `raw:key-${randomUUID()}`;
  await claimKey({ db: database.db }, { key, requestHash: 'h', downstreamIdempotent: false });
  await database.sql`update idempotency_keys set locked_until = now() - interval '1 second' where key = ${key}`;
  const { hold } = await openHold(
    { db: database.db, actor: agent },
    { itemType: 'key', itemId: key, reason: 'uncertain_outcome', detail: 'check', owner },
  );
  return hold;
}

async function deadLetter() {
  const outcome = await runStep(
    { db: database.db },
    {
      taskId: `task-${randomUUID()}`,
      agent: 'payments',
      owner: 'team:payments',
      step: 'charge',
      content: {},
    },
    async () => {
      throw new StepError('permanent', 'card declined for good');
    },
  );
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

/** A retry pool an admin made (directly in its table: the pool is the setup, not the action under test). */
async function aRetryPool(): Promise<number> {
  const [pool] = await database.db
    .insert(retryPools)
    .values({
      agent: `pooled-${randomUUID().slice(0, 8)}`,
      budgetPercent: 10,
      minRetriesPerSecond: 0,
      windowSeconds: 60,
      updatedBy: 'person:admin@example.com',
    })
    .returning({ id: retryPools.id });
  return pool!.id;
}

/** An alert channel an admin made (directly in its table: the channel is the setup, not the action under test). */
async function anAlertChannel(): Promise<number> {
  const [channel] = await database.db
    .insert(alertChannels)
    .values({
      name: `channel-${randomUUID().slice(0, 8)}`,
      kind: 'webhook',
      url: 'https://hooks.example.com/secret-path',
      urlHint: 'https://hooks.example.com/…',
      signingSecret: 'whsec_test',
      createdBy: 'person:admin@example.com',
    })
    .returning({ id: alertChannels.id });
  return channel!.id;
}

/** A new value on every save, so an allowed save is a change (an unchanged save writes no audit record). */
let staleLockMinutes = 100;

/** Each mutating action, run by `person`; resolves when it took effect. */
const mutatingActions: Record<string, (person: Person, ownership: Ownership) => Promise<unknown>> = {
  'hold.clear': async (person, ownership) => {
    const hold = await openTaskHold(database.db, agent, ownerFor(person, ownership));
    return clearHold({ db: database.db, actor: person }, { holdId: hold.id, resolution: 'resume', note: 'approved' });
  },
  'hold.reassign': async (person, ownership) => {
    const hold = await openTaskHold(database.db, agent, ownerFor(person, ownership));
    return reassignHold(
      { db: database.db, actor: person },
      { holdId: hold.id, owner: 'team:finance', note: 'finance decides' },
    );
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
    return clearHold(
      { db: database.db, actor: person },
      { holdId: hold.id, resolution: 'resume', note: 'never reached the provider' },
    );
  },
  'hold.clear (key: mark done)': async (person, ownership) => {
    const hold = await openKeyHold(ownerFor(person, ownership));
    return clearHold(
      { db: database.db, actor: person },
      { holdId: hold.id, resolution: 'discard', note: 'the provider has it' },
    );
  },
  'hold.open (manual)': async (person) =>
    openHold(
      { db: database.db, actor: person },
      { itemType: 'task', itemId: await aTask(), reason: 'manual', detail: 'hold for review', owner: 'team:growth' },
    ),
  'dead_letter.redrive': async (person) =>
    redriveDeadLetter({ db: database.db, actor: person }, { deadLetterId: await deadLetter(), reason: 'fixed' }),
  'dead_letter.redrive_override': async (person) =>
    redriveDeadLetter(
      { db: database.db, actor: person },
      { deadLetterId: await deadLetter(), reason: 'fixed, and worth one more try', overrideBrakes: true },
    ),
  'dead_letter.discard': async (person) =>
    discardDeadLetter({ db: database.db, actor: person }, { deadLetterId: await deadLetter(), reason: 'obsolete' }),
  'slot.force_release': async (person) =>
    forceReleaseSlot({ db: database.db, actor: person }, { ...(await staleLock()), reason: 'run died' }),
  'kill_switch.set': async (person) => {
    await setKillSwitch(
      { db: database.db, actor: person },
      { name: 'stale_lock_release', engaged: true, reason: 'drill' },
    );
    await setKillSwitch(
      { db: database.db, actor: person },
      { name: 'stale_lock_release', engaged: false, reason: 'drill over' },
    );
  },
  'api_token.create': (person) =>
    createApiToken({ db: database.db, actor: person }, { name: 'agent', scopes: ['read'] }),
  'retry_pool.save': (person) =>
    saveRetryPool(
      { db: database.db, actor: person },
      {
        agent: `pooled-${randomUUID().slice(0, 8)}`,
        budgetPercent: 10,
        minRetriesPerSecond: 0,
        windowSeconds: 60,
        reason: 'retry storm',
      },
    ),
  'retry_pool.delete': async (person) =>
    deleteRetryPool({ db: database.db, actor: person }, { poolId: await aRetryPool(), reason: 'no longer needed' }),
  'alert_rule.save': (person) =>
    saveAlertRule(
      { db: database.db, actor: person },
      { kind: 'stale_lock', enabled: true, thresholds: { unreleasableMinutes: ++staleLockMinutes } },
    ),
  'alert_channel.create': (person) =>
    createAlertChannel(
      { db: database.db, actor: person },
      { name: `channel-${randomUUID().slice(0, 8)}`, kind: 'slack', url: 'https://hooks.slack.com/services/x' },
    ),
  'alert_channel.delete': async (person) =>
    deleteAlertChannel({ db: database.db, actor: person }, { channelId: await anAlertChannel() }),
  'alert_channel.set_enabled': async (person) =>
    setAlertChannelEnabled({ db: database.db, actor: person }, { channelId: await anAlertChannel(), enabled: false }),
  'alert_channel.test': async (person) =>
    sendTestAlert({ db: database.db, actor: person }, { channelId: await anAlertChannel() }),
  'price_override.save': (person) =>
    savePriceOverride(
      { db: database.db, actor: person },
      {
        provider: 'openai',
        model: `model-${randomUUID().slice(0, 8)}`,
        inputPerMillion: 1,
        outputPerMillion: 2,
        reason: 'contract',
      },
    ),
  'price_override.delete': async (person) => {
    const model = `model-${randomUUID().slice(0, 8)}`;
    await savePriceOverride(
      { db: database.db, actor: people.admin },
      { model, inputPerMillion: 1, outputPerMillion: 2, reason: 'contract' },
    );
    return deletePriceOverride({ db: database.db, actor: person }, { model, reason: 'contract ended' });
  },
  'mcp_tool_control.save': (person) =>
    saveMcpToolControl(
      { db: database.db, actor: person },
      { server: 'search', tool: `tool-${randomUUID().slice(0, 8)}`, priceUsd: 0.01, reason: 'vendor price' },
    ),
  'mcp_tool_control.delete': async (person) => {
    const tool = `tool-${randomUUID().slice(0, 8)}`;
    await saveMcpToolControl(
      { db: database.db, actor: people.admin },
      { server: 'search', tool, maxIdenticalCalls: 3, reason: 'loops' },
    );
    return deleteMcpToolControl({ db: database.db, actor: person }, { server: 'search', tool, reason: 'done' });
  },
  'spend_budget.save': (person) =>
    saveSpendBudget(
      { db: database.db, actor: person },
      { name: `budget-${randomUUID().slice(0, 8)}`, scope: 'fleet', period: 'day', limitUsd: 5, reason: 'cap' },
    ),
  'spend_budget.delete': async (person) => {
    const name = `budget-${randomUUID().slice(0, 8)}`;
    await saveSpendBudget(
      { db: database.db, actor: people.admin },
      { name, scope: 'agent', scopeValue: 'x', period: 'hour', limitUsd: 1, reason: 'cap' },
    );
    return deleteSpendBudget({ db: database.db, actor: person }, { name, reason: 'done' });
  },
  'refused_call_statuses.save': (person) =>
    saveRefusedStatuses(
      { db: database.db, actor: person },
      { statuses: [429, 500 + (++changedStatus % 99)], reason: 'provider bills nothing for these' },
    ),
  'error_class_rules.save': (person) =>
    saveErrorClassRules(
      { db: database.db, actor: person },
      {
        rules: [{ when: 'status', from: 400 + (++changedStatus % 99), to: 499, errorClass: 'permanent' }],
        reason: 'classify conflicts',
      },
    ),
};
/** Makes each save of a rule list differ from the one before, so an allowed save changes something. */
let changedStatus = 0;

type Role = Person['role'];
type Outcome = 'allowed' | 'refused';
const ANY = 'any' as const;

/**
 * Who may: the promise the product makes (docs/operations/people-and-sign-in.md, Roles), written out row by
 * row rather than derived, so a change to the rule shows up here as a failing
 * row. Ownership is the hold's owner relative to the person for the hold
 * actions; `any` for actions whose target has no owner (the person acts on a
 * target owned by another team).
 */
const whoMay: [action: string, role: Role, ownership: Ownership | typeof ANY, outcome: Outcome][] = [
  // A viewer clears or reassigns only holds of their own or their team's; responders and admins any hold.
  ['hold.clear', 'viewer', 'own', 'allowed'],
  ['hold.clear', 'viewer', 'same team', 'allowed'],
  ['hold.clear', 'viewer', 'other team', 'refused'],
  ['hold.clear', 'responder', 'own', 'allowed'],
  ['hold.clear', 'responder', 'same team', 'allowed'],
  ['hold.clear', 'responder', 'other team', 'allowed'],
  ['hold.clear', 'admin', 'own', 'allowed'],
  ['hold.clear', 'admin', 'same team', 'allowed'],
  ['hold.clear', 'admin', 'other team', 'allowed'],
  ['hold.reassign', 'viewer', 'own', 'allowed'],
  ['hold.reassign', 'viewer', 'same team', 'allowed'],
  ['hold.reassign', 'viewer', 'other team', 'refused'],
  ['hold.reassign', 'responder', 'own', 'allowed'],
  ['hold.reassign', 'responder', 'same team', 'allowed'],
  ['hold.reassign', 'responder', 'other team', 'allowed'],
  ['hold.reassign', 'admin', 'own', 'allowed'],
  ['hold.reassign', 'admin', 'same team', 'allowed'],
  ['hold.reassign', 'admin', 'other team', 'allowed'],
  // Clearing a dead letter's or a key's hold is that item's own action: owning the hold is not enough, a viewer never may.
  ['hold.clear (dead letter: resume = redrive)', 'viewer', 'own', 'refused'],
  ['hold.clear (dead letter: resume = redrive)', 'viewer', 'same team', 'refused'],
  ['hold.clear (dead letter: resume = redrive)', 'viewer', 'other team', 'refused'],
  ['hold.clear (dead letter: resume = redrive)', 'responder', 'own', 'allowed'],
  ['hold.clear (dead letter: resume = redrive)', 'responder', 'same team', 'allowed'],
  ['hold.clear (dead letter: resume = redrive)', 'responder', 'other team', 'allowed'],
  ['hold.clear (dead letter: resume = redrive)', 'admin', 'own', 'allowed'],
  ['hold.clear (dead letter: resume = redrive)', 'admin', 'same team', 'allowed'],
  ['hold.clear (dead letter: resume = redrive)', 'admin', 'other team', 'allowed'],
  ['hold.clear (dead letter: discard)', 'viewer', 'own', 'refused'],
  ['hold.clear (dead letter: discard)', 'viewer', 'same team', 'refused'],
  ['hold.clear (dead letter: discard)', 'viewer', 'other team', 'refused'],
  ['hold.clear (dead letter: discard)', 'responder', 'own', 'allowed'],
  ['hold.clear (dead letter: discard)', 'responder', 'same team', 'allowed'],
  ['hold.clear (dead letter: discard)', 'responder', 'other team', 'allowed'],
  ['hold.clear (dead letter: discard)', 'admin', 'own', 'allowed'],
  ['hold.clear (dead letter: discard)', 'admin', 'same team', 'allowed'],
  ['hold.clear (dead letter: discard)', 'admin', 'other team', 'allowed'],
  ['hold.clear (key: release)', 'viewer', 'own', 'refused'],
  ['hold.clear (key: release)', 'viewer', 'same team', 'refused'],
  ['hold.clear (key: release)', 'viewer', 'other team', 'refused'],
  ['hold.clear (key: release)', 'responder', 'own', 'allowed'],
  ['hold.clear (key: release)', 'responder', 'same team', 'allowed'],
  ['hold.clear (key: release)', 'responder', 'other team', 'allowed'],
  ['hold.clear (key: release)', 'admin', 'own', 'allowed'],
  ['hold.clear (key: release)', 'admin', 'same team', 'allowed'],
  ['hold.clear (key: release)', 'admin', 'other team', 'allowed'],
  ['hold.clear (key: mark done)', 'viewer', 'own', 'refused'],
  ['hold.clear (key: mark done)', 'viewer', 'same team', 'refused'],
  ['hold.clear (key: mark done)', 'viewer', 'other team', 'refused'],
  ['hold.clear (key: mark done)', 'responder', 'own', 'allowed'],
  ['hold.clear (key: mark done)', 'responder', 'same team', 'allowed'],
  ['hold.clear (key: mark done)', 'responder', 'other team', 'allowed'],
  ['hold.clear (key: mark done)', 'admin', 'own', 'allowed'],
  ['hold.clear (key: mark done)', 'admin', 'same team', 'allowed'],
  ['hold.clear (key: mark done)', 'admin', 'other team', 'allowed'],
  // Responders and admins.
  ['hold.open (manual)', 'viewer', ANY, 'refused'],
  ['hold.open (manual)', 'responder', ANY, 'allowed'],
  ['hold.open (manual)', 'admin', ANY, 'allowed'],
  ['dead_letter.redrive', 'viewer', ANY, 'refused'],
  ['dead_letter.redrive', 'responder', ANY, 'allowed'],
  ['dead_letter.redrive', 'admin', ANY, 'allowed'],
  ['dead_letter.discard', 'viewer', ANY, 'refused'],
  ['dead_letter.discard', 'responder', ANY, 'allowed'],
  ['dead_letter.discard', 'admin', ANY, 'allowed'],
  ['slot.force_release', 'viewer', ANY, 'refused'],
  ['slot.force_release', 'responder', ANY, 'allowed'],
  ['slot.force_release', 'admin', ANY, 'allowed'],
  // Admins only.
  ['dead_letter.redrive_override', 'viewer', ANY, 'refused'],
  ['dead_letter.redrive_override', 'responder', ANY, 'refused'],
  ['dead_letter.redrive_override', 'admin', ANY, 'allowed'],
  ['kill_switch.set', 'viewer', ANY, 'refused'],
  ['kill_switch.set', 'responder', ANY, 'refused'],
  ['kill_switch.set', 'admin', ANY, 'allowed'],
  ['api_token.create', 'viewer', ANY, 'refused'],
  ['api_token.create', 'responder', ANY, 'refused'],
  ['api_token.create', 'admin', ANY, 'allowed'],
  ['retry_pool.save', 'viewer', ANY, 'refused'],
  ['retry_pool.save', 'responder', ANY, 'refused'],
  ['retry_pool.save', 'admin', ANY, 'allowed'],
  ['retry_pool.delete', 'viewer', ANY, 'refused'],
  ['retry_pool.delete', 'responder', ANY, 'refused'],
  ['retry_pool.delete', 'admin', ANY, 'allowed'],
  ['alert_rule.save', 'viewer', ANY, 'refused'],
  ['alert_rule.save', 'responder', ANY, 'refused'],
  ['alert_rule.save', 'admin', ANY, 'allowed'],
  ['alert_channel.create', 'viewer', ANY, 'refused'],
  ['alert_channel.create', 'responder', ANY, 'refused'],
  ['alert_channel.create', 'admin', ANY, 'allowed'],
  ['alert_channel.delete', 'viewer', ANY, 'refused'],
  ['alert_channel.delete', 'responder', ANY, 'refused'],
  ['alert_channel.delete', 'admin', ANY, 'allowed'],
  ['alert_channel.set_enabled', 'viewer', ANY, 'refused'],
  ['alert_channel.set_enabled', 'responder', ANY, 'refused'],
  ['alert_channel.set_enabled', 'admin', ANY, 'allowed'],
  ['alert_channel.test', 'viewer', ANY, 'refused'],
  ['alert_channel.test', 'responder', ANY, 'refused'],
  ['alert_channel.test', 'admin', ANY, 'allowed'],
  ['price_override.save', 'viewer', ANY, 'refused'],
  ['price_override.save', 'responder', ANY, 'refused'],
  ['price_override.save', 'admin', ANY, 'allowed'],
  ['price_override.delete', 'viewer', ANY, 'refused'],
  ['price_override.delete', 'responder', ANY, 'refused'],
  ['price_override.delete', 'admin', ANY, 'allowed'],
  ['refused_call_statuses.save', 'viewer', ANY, 'refused'],
  ['refused_call_statuses.save', 'responder', ANY, 'refused'],
  ['refused_call_statuses.save', 'admin', ANY, 'allowed'],
  ['error_class_rules.save', 'viewer', ANY, 'refused'],
  ['error_class_rules.save', 'responder', ANY, 'refused'],
  ['error_class_rules.save', 'admin', ANY, 'allowed'],
  ['mcp_tool_control.save', 'viewer', ANY, 'refused'],
  ['mcp_tool_control.save', 'responder', ANY, 'refused'],
  ['mcp_tool_control.save', 'admin', ANY, 'allowed'],
  ['mcp_tool_control.delete', 'viewer', ANY, 'refused'],
  ['mcp_tool_control.delete', 'responder', ANY, 'refused'],
  ['mcp_tool_control.delete', 'admin', ANY, 'allowed'],
  ['spend_budget.save', 'viewer', ANY, 'refused'],
  ['spend_budget.save', 'responder', ANY, 'refused'],
  ['spend_budget.save', 'admin', ANY, 'allowed'],
  ['spend_budget.delete', 'viewer', ANY, 'refused'],
  ['spend_budget.delete', 'responder', ANY, 'refused'],
  ['spend_budget.delete', 'admin', ANY, 'allowed'],
];

describe('authorization matrix (library level)', () => {
  it('has a row for every mutating action, for every role (and every ownership of a hold), and no other rows', () => {
    const rows = whoMay.map(([action, role, ownership]) => `${action} | ${role} | ${ownership}`);
    expect(new Set(rows).size).toBe(rows.length);
    expect(new Set(whoMay.map(([action]) => action))).toEqual(new Set(Object.keys(mutatingActions)));
    for (const action of Object.keys(mutatingActions)) {
      const ownerships = new Set(whoMay.filter((row) => row[0] === action).map((row) => row[2]));
      const expectedOwnerships: string[] = ownerships.has(ANY) ? [ANY] : ['own', 'same team', 'other team'];
      for (const role of Object.keys(people)) {
        const covered = whoMay.filter((row) => row[0] === action && row[1] === role).map((row) => row[2]);
        expect(covered.sort(), `${action} by a ${role}`).toEqual([...expectedOwnerships].sort());
      }
    }
  });

  for (const [action, role, ownership, outcome] of whoMay) {
    const person = people[role];
    const label =
      ownership === ANY
        ? `${action} by a ${role}`
        : `${action} by a ${role} on a hold of ${ownership === 'own' ? 'their own' : `their ${ownership}`}`;
    it(`${label}: ${outcome}`, async () => {
      const auditBefore = await auditCountBy(person);
      // An action whose target has no owner acts on another team's work.
      const run = mutatingActions[action]!(person, ownership === ANY ? 'other team' : ownership);
      if (outcome === 'allowed') {
        await run;
        expect(await auditCountBy(person)).toBeGreaterThan(auditBefore);
      } else {
        await expect(run).rejects.toMatchObject({ code: 'FORBIDDEN' });
        expect(await auditCountBy(person)).toBe(auditBefore);
      }
    });
  }
});
