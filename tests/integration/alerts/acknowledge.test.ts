import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { acknowledgeAlert } from '../../../packages/engine/src/alerts/acknowledge';
import type { Actor } from '../../../packages/engine/src/core';
import { alertInstances, auditLog } from '../../../packages/engine/src/db/schema';
import { getAttentionCounts, listFiringAlerts } from '../../../lib/queries/attention';
import { useTestDatabase } from '../../support/test-database';
import { aPerson } from '../../support/actors';
import { insertAlert } from '../../support/alerts';

const database = useTestDatabase();
const responder = aPerson('responder', 'rex@example.com');
const viewer = aPerson('viewer', 'vera@example.com');
const ctx = (actor: Actor, clock?: () => Date) => ({ db: database.db, actor, ...(clock ? { clock } : {}) });

async function fire(title: string, firedMinutesAgo: number) {
  const alert = await insertAlert(database.db, {
    identity: `slot:${randomUUID()}`,
    title,
    detail: 'test',
    firedAt: new Date(Date.now() - firedMinutesAgo * 60_000),
  });
  return alert!;
}

describe('acknowledging an alert', () => {
  it('marks who has it and until when, audited; the alert keeps firing and is counted apart', async () => {
    const older = await fire('older', 30);
    await fire('newer', 5);
    const before = await listFiringAlerts(database.db, 10);
    expect(before.alerts.map((alert) => alert.title)).toEqual(['older', 'newer']);

    const acknowledged = await acknowledgeAlert(ctx(responder), {
      alertId: older.id,
      forMinutes: 60,
      note: 'Restarting the publisher',
    });
    expect(acknowledged).toMatchObject({ status: 'firing', acknowledgedBy: 'person:rex@example.com' });
    expect(acknowledged.acknowledgedUntil!.getTime() - acknowledged.acknowledgedAt!.getTime()).toBe(3_600_000);

    // Nobody has the newer one: it comes first now, and only it is counted as waiting for someone.
    const after = await listFiringAlerts(database.db, 10);
    expect(after).toMatchObject({ total: 2, unattended: 1, silenced: 0 });
    expect(after.alerts.map((alert) => [alert.title, alert.acknowledgedBy])).toEqual([
      ['newer', null],
      ['older', 'person:rex@example.com'],
    ]);
    expect((await getAttentionCounts(database.db, [])).firingAlerts).toBe(1);

    const [record] = await database.db.select().from(auditLog).where(eq(auditLog.action, 'alert.acknowledge'));
    expect(record).toMatchObject({
      actorId: 'rex@example.com',
      targetType: 'alert',
      targetId: String(older.id),
      reason: 'Restarting the publisher',
      before: { acknowledgedBy: null, acknowledgedUntil: null },
    });
    await database.db.update(alertInstances).set({ status: 'resolved', resolvedAt: new Date() });
  });

  it('lapses at the time given (the clock is an input), and lasts until resolved when no time is given', async () => {
    const lapsed = await fire('lapsed', 90);
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await acknowledgeAlert(
      ctx(responder, () => twoHoursAgo),
      { alertId: lapsed.id, forMinutes: 60, note: 'looking' },
    );
    const open = await fire('open-ended', 10);
    await acknowledgeAlert(ctx(responder), { alertId: open.id, note: 'mine until it resolves' });
    const firing = await listFiringAlerts(database.db, 10);
    expect(firing.alerts.map((alert) => [alert.title, alert.acknowledgedBy !== null])).toEqual([
      ['lapsed', false],
      ['open-ended', true],
    ]);
    expect(firing.alerts[1]!.acknowledgedUntil).toBeNull();
    await database.db.update(alertInstances).set({ status: 'resolved', resolvedAt: new Date() });
  });

  it('refuses a viewer, a resolved alert, an unknown one and bad fields by name, writing nothing', async () => {
    const alert = await fire('refusals', 1);
    await expect(acknowledgeAlert(ctx(viewer), { alertId: alert.id, note: 'x' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(
      acknowledgeAlert(ctx(responder), { alertId: alert.id, forMinutes: 0, note: ' ' }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { forMinutes: ['must be at least 1 minute'], note: ['say what you are doing about it'] },
    });
    await expect(acknowledgeAlert(ctx(responder), { alertId: 999_999_999, note: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await database.db
      .update(alertInstances)
      .set({ status: 'resolved', resolvedAt: new Date() })
      .where(eq(alertInstances.id, alert.id));
    await expect(acknowledgeAlert(ctx(responder), { alertId: alert.id, note: 'late' })).rejects.toMatchObject({
      code: 'STATE_CONFLICT',
    });
    const [row] = await database.db.select().from(alertInstances).where(eq(alertInstances.id, alert.id));
    expect(row?.acknowledgedBy).toBeNull();
  });
});
