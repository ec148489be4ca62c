import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { evaluateAlerts } from '../../../packages/engine/src/alerts/evaluate';
import { createSilence, endSilence } from '../../../packages/engine/src/alerts/silences';
import type { Actor } from '../../../packages/engine/src/core';
import {
  alertDeliveries,
  alertInstances,
  alertSilences,
  auditLog,
  budgetRefusalMinutes,
} from '../../../packages/engine/src/db/schema';
import { listSilences } from '../../../lib/queries/alert-silences';
import { getAttentionCounts, listFiringAlerts } from '../../../lib/queries/attention';
import { useAlertHours } from '../../support/alerts';
import { useTestDatabase } from '../../support/test-database';
import { aPerson } from '../../support/actors';

const database = useTestDatabase();
const responder = aPerson('responder', 'rex@example.com');
const viewer = aPerson('viewer', 'vera@example.com');

const { at } = useAlertHours(database);
const as = (actor: Actor, minutes = 0) => ({ db: database.db, actor, clock: () => at(minutes) });
const pass = (minutes: number) => evaluateAlerts({ db: database.db }, { now: at(minutes) });

/** Budget refusals on agent/step from minute `from` through `to`: the budget_refusals alert fires for that step. */
async function refusals(agent: string, step: string, from: number, to: number) {
  for (let minutes = from; minutes <= to; minutes++) {
    await database.db
      .insert(budgetRefusalMinutes)
      .values({ minute: at(minutes), agent, step, reason: 'retry_ceiling', refusals: 100 });
  }
}

async function alertOf(agent: string, step: string) {
  const [alert] = await database.db
    .select()
    .from(alertInstances)
    .where(and(eq(alertInstances.identity, `step:${agent}/${step}`), eq(alertInstances.status, 'firing')));
  return alert!;
}

async function eventsOf(instanceId: number) {
  const rows = await database.db.select().from(alertDeliveries).where(eq(alertDeliveries.instanceId, instanceId));
  return rows.map((row) => row.event).sort();
}

const auditOf = (action: string, silenceId: number) =>
  database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, String(silenceId))));

describe('who may silence', () => {
  it('refuses a viewer both creating and ending a silence, writing nothing', async () => {
    const reason = `viewer-${randomUUID()}`;
    await expect(createSilence(as(viewer), { kind: 'stale_lock', forMinutes: 60, reason })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(await database.db.select().from(alertSilences).where(eq(alertSilences.reason, reason))).toEqual([]);

    const { silence } = await createSilence(as(responder), { kind: 'stale_lock', forMinutes: 60, reason });
    await expect(endSilence(as(viewer), { silenceId: silence.id })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const [still] = await database.db.select().from(alertSilences).where(eq(alertSilences.id, silence.id));
    expect(still).toMatchObject({ endedAt: null, endedBy: null });
    expect(await auditOf('alert.silence.end', silence.id)).toEqual([]);
  });

  it('names every bad field, and refuses a silence of everything', async () => {
    await expect(
      createSilence(as(responder), {
        identityPattern: 'x'.repeat(301),
        forMinutes: 30 * 24 * 60 + 1,
        reason: '  ',
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: {
        identityPattern: ['must be at most 300 characters'],
        forMinutes: ['must be at most 43200 minutes (30 days)'],
        reason: ['say why these alerts may stay quiet'],
      },
    });
    await expect(createSilence(as(responder), { forMinutes: 60, reason: 'maintenance' })).rejects.toMatchObject({
      fieldErrors: { kind: ['choose a rule, or match a subject or a team: a silence of everything is refused'] },
    });
    await expect(
      createSilence(as(responder), { kind: 'stale_lock', forMinutes: 60, endsAt: at(60), reason: 'x' }),
    ).rejects.toMatchObject({ fieldErrors: { forMinutes: ['give a duration or an end time (one)'] } });
    // An end time is checked against the clock: not in the past, not beyond 30 days.
    for (const endsAt of [at(-1), at(31 * 24 * 60)]) {
      await expect(
        createSilence(as(responder), { kind: 'stale_lock', endsAt: endsAt.toISOString(), reason: 'x' }),
      ).rejects.toMatchObject({ fieldErrors: { endsAt: ['must be between 5 minutes and 30 days from now'] } });
    }
  });
});

describe('the audit record', () => {
  it('names the person from the session, and is written in the same transaction as the silence and its end', async () => {
    const { silence } = await createSilence(as(responder), {
      kind: 'budget_refusals',
      identityPattern: 'step:research/*',
      endsAt: at(90).toISOString(),
      reason: 'Provider quota raised at 14:00',
    });
    expect(silence).toMatchObject({ createdBy: 'person:rex@example.com', startsAt: at(0), endsAt: at(90) });
    expect(await auditOf('alert.silence', silence.id)).toEqual([
      expect.objectContaining({
        actorType: 'person',
        actorId: 'rex@example.com',
        targetType: 'alert_silence',
        reason: 'Provider quota raised at 14:00',
        after: expect.objectContaining({ kind: 'budget_refusals', identityPattern: 'step:research/*' }),
      }),
    ]);

    // The audit log refuses the next records: neither the silence nor its end may then be stored without one.
    await database.sql.unsafe(`
      create function refuse_silence_audit() returns trigger language plpgsql as $$
        begin raise exception 'audit refused for this test'; end $$;
      create trigger refuse_silence_audit before insert on audit_log
        for each row when (new.action like 'alert.silence%') execute function refuse_silence_audit();`);
    try {
      const reason = `unaudited-${randomUUID()}`;
      await expect(createSilence(as(responder), { kind: 'stale_lock', forMinutes: 60, reason })).rejects.toThrow();
      expect(await database.db.select().from(alertSilences).where(eq(alertSilences.reason, reason))).toEqual([]);
      await expect(endSilence(as(responder, 5), { silenceId: silence.id })).rejects.toThrow();
      const [unended] = await database.db.select().from(alertSilences).where(eq(alertSilences.id, silence.id));
      expect(unended?.endedAt).toBeNull();
    } finally {
      await database.sql.unsafe(
        'drop trigger refuse_silence_audit on audit_log; drop function refuse_silence_audit();',
      );
    }

    // Ended once: a second end (a double click) changes nothing and writes no second record.
    expect((await endSilence(as(responder, 5), { silenceId: silence.id })).changed).toBe(true);
    const again = await endSilence(as(responder, 6), { silenceId: silence.id });
    expect(again).toMatchObject({ changed: false, silence: { endedAt: at(5), endedBy: 'person:rex@example.com' } });
    expect(await auditOf('alert.silence.end', silence.id)).toHaveLength(1);
  });
});

describe('a silenced alert', () => {
  it('is recorded but not delivered nor counted, and is listed last, saying by whom, until when and why', async () => {
    const agent = `quiet-${randomUUID().slice(0, 8)}`;
    const baseline = await getAttentionCounts(database.db, [], at(1));
    const { silence, matchingFiring } = await createSilence(as(responder), {
      kind: 'budget_refusals',
      identityPattern: `step:${agent}/*`,
      forMinutes: 60,
      reason: 'Quota raised; refusals expected for an hour',
    });
    expect(matchingFiring).toBe(0);
    await refusals(agent, 'draft', 1, 1);
    await refusals(`loud-${agent}`, 'draft', 1, 1);
    await pass(1);

    const silenced = await alertOf(agent, 'draft');
    const loud = await alertOf(`loud-${agent}`, 'draft');
    expect(silenced).toMatchObject({ silencedBy: silence.id, notificationHeld: true });
    expect(loud).toMatchObject({ silencedBy: null, notificationHeld: false });
    expect(await eventsOf(silenced.id)).toEqual([]);
    expect(await eventsOf(loud.id)).toEqual(['fired']);

    expect((await getAttentionCounts(database.db, [], at(1))).firingAlerts).toBe(baseline.firingAlerts + 1);
    const firing = await listFiringAlerts(database.db, 100, at(1));
    expect(firing.silenced).toBe(1);
    expect(firing.alerts.at(-1)).toMatchObject({
      id: silenced.id,
      silence: {
        createdBy: 'person:rex@example.com',
        endsAt: at(60),
        reason: 'Quota raised; refusals expected for an hour',
      },
    });
    const listed = await listSilences(database.db, { now: at(1) });
    expect(listed.active.find((row) => row.id === silence.id)).toMatchObject({ active: true, matchingFiring: 1 });
  });

  it('is delivered once the silence runs out, at the time given, if it still fires; one resolved meanwhile never is', async () => {
    const agent = `expiry-${randomUUID().slice(0, 8)}`;
    await createSilence(as(responder), { identityPattern: `step:${agent}/*`, forMinutes: 60, reason: 'deploying' });
    await refusals(agent, 'long', 1, 70);
    await refusals(agent, 'short', 1, 1);
    for (const minutes of [1, 10, 30, 59]) await pass(minutes);
    const long = await alertOf(agent, 'long');
    expect(await eventsOf(long.id)).toEqual([]);
    // "short" cleared at 6 and resolved at 16, unheard.
    const [short] = await database.db
      .select()
      .from(alertInstances)
      .where(eq(alertInstances.identity, `step:${agent}/short`));
    expect(short).toMatchObject({ status: 'resolved', notificationHeld: true });

    // The silence ends at 60: counted again from then, and the next pass sends what it held back, once.
    const counted = async (minutes: number) =>
      (await listFiringAlerts(database.db, 500, at(minutes))).alerts.find((alert) => alert.id === long.id)?.silence;
    expect(await counted(59)).not.toBeNull();
    expect(await counted(60)).toBeNull();
    const released = await pass(60);
    expect(released.released).toBe(1);
    await pass(61);
    expect(await eventsOf(long.id)).toEqual(['fired']);
    expect(await eventsOf(short!.id)).toEqual([]);
  });

  it('is delivered on the next pass when its silence is ended early', async () => {
    const agent = `ended-${randomUUID().slice(0, 8)}`;
    const { silence } = await createSilence(as(responder), {
      kind: 'budget_refusals',
      identityPattern: `step:${agent}/draft`,
      forMinutes: 240,
      reason: 'looking into it',
    });
    await refusals(agent, 'draft', 1, 10);
    await pass(1);
    const alert = await alertOf(agent, 'draft');
    expect(await eventsOf(alert.id)).toEqual([]);
    await endSilence(as(responder, 3), { silenceId: silence.id });
    await pass(4);
    expect(await eventsOf(alert.id)).toEqual(['fired']);
    const listed = await listSilences(database.db, { now: at(4) });
    expect(listed.active.map((row) => row.id)).not.toContain(silence.id);
    expect(listed.past.find((row) => row.id === silence.id)).toMatchObject({ endedBy: 'person:rex@example.com' });
  });

  it('matches a pattern literally but for *, and a team exactly', async () => {
    const agent = `lit_${randomUUID().slice(0, 8)}`;
    await createSilence(as(responder), { identityPattern: `step:${agent}/a_b`, forMinutes: 60, reason: 'x' });
    await refusals(agent, 'a_b', 1, 1);
    await refusals(agent, 'axb', 1, 1);
    await refusals(agent.replace('_', 'x'), 'a_b', 1, 1);
    await pass(1);
    expect((await alertOf(agent, 'a_b')).silencedBy).not.toBeNull();
    expect((await alertOf(agent, 'axb')).silencedBy).toBeNull();
    expect((await alertOf(agent.replace('_', 'x'), 'a_b')).silencedBy).toBeNull();
    // Budget refusal alerts have no team: a silence for a team does not match them.
    const { matchingFiring } = await createSilence(as(responder), {
      identityPattern: `step:${agent}/*`,
      team: 'payments',
      forMinutes: 60,
      reason: 'x',
    });
    expect(matchingFiring).toBe(0);
  });
});

describe('a pattern that matches every subject', () => {
  it.each(['*', '**', ' * ', '*:*', '**:***'])(
    'is refused alone (%j), like no pattern, writing nothing',
    async (pattern) => {
      const reason = `everything-${randomUUID()}`;
      await expect(
        createSilence(as(responder), { identityPattern: pattern, forMinutes: 60, reason }),
      ).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        fieldErrors: { identityPattern: [expect.stringContaining('a silence of everything is refused')] },
      });
      expect(await database.db.select().from(alertSilences).where(eq(alertSilences.reason, reason))).toEqual([]);
    },
  );

  it('is stored as no pattern beside a rule or a team; a pattern with any text of its own stays', async () => {
    const reason = `narrowed-${randomUUID()}`;
    const byRule = await createSilence(as(responder), {
      kind: 'stale_lock',
      identityPattern: '*',
      forMinutes: 60,
      reason,
    });
    expect(byRule.silence).toMatchObject({ kind: 'stale_lock', identityPattern: null, team: null });
    const byTeam = await createSilence(as(responder), {
      team: 'payments',
      identityPattern: '*:*',
      forMinutes: 60,
      reason,
    });
    expect(byTeam.silence).toMatchObject({ kind: null, identityPattern: null, team: 'payments' });
    // Only identities with a `/` (steps), or with a second `:`, match these: they narrow.
    for (const identityPattern of ['*:*/*', '*:*:*', 'step:*']) {
      const { silence } = await createSilence(as(responder), { identityPattern, forMinutes: 60, reason });
      expect(silence.identityPattern).toBe(identityPattern);
    }
  });
});

describe('the same silence asked twice', () => {
  const request = (agent: string, reason = 'deploying') => ({
    kind: 'budget_refusals' as const,
    identityPattern: ` step:${agent}/* `,
    forMinutes: 60,
    reason,
  });
  const rowsOf = (agent: string) =>
    database.db
      .select()
      .from(alertSilences)
      .where(eq(alertSilences.identityPattern, `step:${agent}/*`));

  it('is made once: a double submit answers the first silence, with one row and one audit record', async () => {
    const agent = `twice-${randomUUID().slice(0, 8)}`;
    const first = await createSilence(as(responder), request(agent));
    expect(first.created).toBe(true);
    // The second click, 20 seconds later (its end 20 s later too), by another person on call.
    const other: Actor = { ...responder, id: 'rita@example.com' };
    const second = await createSilence(as(other, 1 / 3), request(agent));
    expect(second).toMatchObject({ created: false, silence: { id: first.silence.id, endsAt: at(60) } });
    expect(await rowsOf(agent)).toHaveLength(1);
    expect(await auditOf('alert.silence', first.silence.id)).toHaveLength(1);
  });

  it('is made once when both requests arrive at the same time', async () => {
    const agent = `race-${randomUUID().slice(0, 8)}`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => createSilence(as(responder), request(agent))));
    expect(new Set(answers.map((answer) => answer.silence.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.created)).toHaveLength(1);
    expect(await rowsOf(agent)).toHaveLength(1);
  });

  it('is a new silence with another reason, once the first has ended, or asked to end later (an extension)', async () => {
    const agent = `again-${randomUUID().slice(0, 8)}`;
    const first = await createSilence(as(responder), request(agent));
    const otherReason = await createSilence(as(responder), request(agent, 'deploying, part two'));
    expect(otherReason.created).toBe(true);
    // Asked at minute 10 for an hour: it would end 10 minutes after the first, so it is not the same silence.
    const extension = await createSilence(as(responder, 10), request(agent));
    expect(extension).toMatchObject({ created: true, silence: { endsAt: at(70) } });
    await endSilence(as(responder, 11), { silenceId: first.silence.id });
    await endSilence(as(responder, 11), { silenceId: extension.silence.id });
    const afterEnd = await createSilence(as(responder, 12), request(agent));
    expect(afterEnd.created).toBe(true);
    expect(await rowsOf(agent)).toHaveLength(4);
  });
});
