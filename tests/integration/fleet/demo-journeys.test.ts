import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { seedDemoJourneysIfEmpty } from '../../../lib/demo/seed-journeys';
import { seedDemoPeopleIfEmpty } from '../../../lib/demo/seed-people';
import { freezeIdleTasks } from '../../../packages/engine/src/core/holds/freeze-idle-tasks';
import { deadLetters, holds } from '../../../packages/engine/src/db/schema';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

describe('the demo journeys', () => {
  it('leave a task for the freeze sweep and a dead letter to edit before its redrive, for growth; once', async () => {
    const ctx = { db: database.db };
    await seedDemoPeopleIfEmpty(ctx);
    expect(await seedDemoJourneysIfEmpty(ctx)).toBe(2);
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
  });
});
