import { describe, expect, it } from 'vitest';
import { seedDemoAttemptsIfEmpty } from '../../../lib/demo/seed-attempts';
import { seedDemoOwnersIfEmpty } from '../../../lib/demo/seed-owners';
import { seedDemoPeopleIfEmpty } from '../../../lib/demo/seed-people';
import { getStepOwner } from '../../../lib/queries/step-owners';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();

describe('the demo owners', () => {
  it('answer "who owns this?" for every demo agent, one step apart, with a rotation and a runbook; seeded once', async () => {
    const ctx = { db: database.db };
    await seedDemoAttemptsIfEmpty(ctx, new Date());
    await seedDemoPeopleIfEmpty(ctx);
    expect(await seedDemoOwnersIfEmpty(ctx)).toBe(5);
    expect(await seedDemoOwnersIfEmpty(ctx)).toBe(0);
    expect(await getStepOwner(database.db, { agent: 'payments', step: 'charge_card' })).toMatchObject({
      owner: 'team:payments',
      source: 'agent',
      contact: 'payments-primary (demo rotation)',
      runbookUrl: '/runbooks/dead-letters-waiting',
    });
    expect(await getStepOwner(database.db, { agent: 'research', step: 'summarize' })).toMatchObject({
      owner: 'team:growth',
      source: 'step',
    });
    expect(await getStepOwner(database.db, { agent: 'research', step: 'plan' })).toMatchObject({
      owner: 'team:platform',
      source: 'agent',
    });
  });
});
