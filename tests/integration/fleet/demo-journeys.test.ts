import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { seedDemoJourneysIfEmpty } from '../../../lib/demo/seed-journeys';
import { seedDemoPeopleIfEmpty } from '../../../lib/demo/seed-people';
import { freezeIdleTasks } from '../../../packages/engine/src/core/holds/freeze-idle-tasks';
import { alertInstances, deadLetters, holds } from '../../../packages/engine/src/db/schema';
import { seedDemoAttemptsIfEmpty } from '../../../lib/demo/seed-attempts';
import { seedDemoOwnersIfEmpty } from '../../../lib/demo/seed-owners';
import { evaluateAlerts } from '../../../packages/engine/src/alerts/evaluate';
import { sweepStaleSlots } from '../../../packages/engine/src/core/slots/force-release';
import { rollUpAttempts } from '../../../packages/engine/src/rollups';

const DAY_MS = 24 * 3_600_000;
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

describe('the demo journeys', () => {
  it('leave a task for the freeze sweep, a dead letter to edit before its redrive and a lock to release; once', async () => {
    const ctx = { db: database.db };
    await seedDemoPeopleIfEmpty(ctx);
    expect(await seedDemoJourneysIfEmpty(ctx)).toBe(3);
    expect(await seedDemoJourneysIfEmpty(ctx)).toBe(0);

    // The first freeze pass after the start parks the idle task for its owner.
    const { frozen } = await freezeIdleTasks(ctx);
    expect(frozen).toContain('onboarding-5120');
    const [frozenHold] = await database.db
      .select()
      .from(holds)
      .where(and(eq(holds.itemId, 'onboarding-5120'), eq(holds.status, 'open')));
    expect(frozenHold).toMatchObject({ reason: 'frozen', owner: 'team:growth' });

    const [letter] = await database.db.select().from(deadLetters).where(eq(deadLetters.taskId, 'newsletter-0412'));
    expect(letter).toMatchObject({
      status: 'pending',
      agent: 'outreach',
      step: 'send_email',
      errorClass: 'permanent',
      payload: { template: 'spring-sale', audience: 'eu-customers' },
    });
    expect(letter?.lastError).toContain('template "spring-sale" does not exist');
    const [letterHold] = await database.db
      .select()
      .from(holds)
      .where(and(eq(holds.itemType, 'dead_letter'), eq(holds.itemId, String(letter!.id))));
    expect(letterHold).toMatchObject({ status: 'open', owner: 'team:growth' });

    // The publish lock the crashed run left: past its time to live, and the sweeper will not release it, since
    // the run recorded a side effect it may have half done. A person checks, then releases it over the guards.
    const sweep = await sweepStaleSlots(ctx);
    expect(sweep.refused).toEqual([{ slot: 'publish:pricing-page-eu', failedGuards: ['no_evidence'] }]);
  });
});

describe('a fresh demo, on a clock the test turns', () => {
  const database = useTestDatabase();

  it('has every journey waiting within five minutes of the start, and its retry-share alert resolves once the rise is a day old', async () => {
    const ctx = { db: database.db };
    const start = new Date();
    const minutes = (count: number) => new Date(start.getTime() + count * 60_000);
    // What npm start seeds, in its order (scripts/start.ts).
    await seedDemoAttemptsIfEmpty(ctx, start);
    await seedDemoPeopleIfEmpty(ctx);
    await seedDemoOwnersIfEmpty(ctx);
    await seedDemoJourneysIfEmpty(ctx);
    await rollUpAttempts(database.db, { now: start, retentionFloor: new Date(start.getTime() - 30 * DAY_MS) });

    // The sweeps of the first five minutes: the freeze pass, the stale-lock pass, the alert passes.
    await freezeIdleTasks(ctx);
    await sweepStaleSlots(ctx, { now: minutes(1) });
    for (const at of [1, 3, 5]) await evaluateAlerts(ctx, { now: minutes(at) });

    const firing = await database.db
      .select({ kind: alertInstances.kind, identity: alertInstances.identity, team: alertInstances.team })
      .from(alertInstances)
      .where(eq(alertInstances.status, 'firing'));
    // The responder's: the draft step's retries rose six hours ago, routed to the team that owns outreach.
    expect(firing).toContainEqual({
      kind: 'retry_share_anomaly',
      identity: 'step:outreach/draft_email',
      team: 'growth',
    });
    // The owner's: the frozen task and the dead letter wait for growth; the stale lock for a person's release.
    const [lock] = await database.sql<{ held: boolean; refused: string[] }[]>`
      select released_at is null as held, release_refused_guards as refused from slot_locks
      where slot = 'publish:pricing-page-eu'`;
    expect(lock).toEqual({ held: true, refused: ['no_evidence'] });
    const openHolds = await database.db
      .select({ reason: holds.reason, owner: holds.owner })
      .from(holds)
      .where(eq(holds.status, 'open'));
    expect(openHolds).toContainEqual({ reason: 'frozen', owner: 'team:growth' });
    const [letter] = await database.db.select().from(deadLetters).where(eq(deadLetters.taskId, 'newsletter-0412'));
    expect(letter?.status).toBe('pending');

    // A day and more later the rise has left the last 24 hours (no agent ran meanwhile): the alert resolves.
    for (const hours of [30, 31]) await evaluateAlerts(ctx, { now: new Date(start.getTime() + hours * 3_600_000) });
    const [anomaly] = await database.db
      .select({ status: alertInstances.status })
      .from(alertInstances)
      .where(eq(alertInstances.identity, 'step:outreach/draft_email'));
    expect(anomaly).toEqual({ status: 'resolved' });
  });
});
