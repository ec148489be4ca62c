import { sql } from 'drizzle-orm';
import type { Actor, CoreContext } from '@holdfast/engine/core';
import { saveStepOwner } from '@holdfast/engine/core';
import { stepOwners } from '@holdfast/engine/db/schema';

const seeder: Actor = { type: 'system', id: 'demo-seed' };

/**
 * Owners for the demo agents, as an admin would name them, so that every step answers "who owns this?": the
 * teams the demo people are in, a rotation to page and the runbook to open first. One step of research is owned
 * apart from its agent, to show a step's own owner; the traced briefing agent is left for an admin to name.
 */
const demoOwners = [
  {
    agent: 'research',
    step: '*',
    owner: 'team:platform',
    contact: 'platform-primary (demo rotation)',
    runbookUrl: '/runbooks/retry-share-anomaly',
  },
  {
    agent: 'research',
    step: 'summarize',
    owner: 'team:growth',
    contact: 'growth on-call (demo)',
    runbookUrl: '/runbooks/circuit-open',
  },
  {
    agent: 'outreach',
    step: '*',
    owner: 'team:growth',
    contact: 'growth on-call (demo)',
    runbookUrl: '/runbooks/budget-refusals',
  },
  {
    agent: 'payments',
    step: '*',
    owner: 'team:payments',
    contact: 'payments-primary (demo rotation)',
    runbookUrl: '/runbooks/dead-letters-waiting',
  },
  {
    agent: 'publishing',
    step: '*',
    owner: 'team:platform',
    contact: 'platform-primary (demo rotation)',
    runbookUrl: '/runbooks/stale-lock',
  },
];

/** Seeds the demo owners when none are named; needs the demo people's teams and the seeded history. */
export async function seedDemoOwnersIfEmpty(ctx: CoreContext): Promise<number> {
  const [existing] = await ctx.db.select({ count: sql<number>`count(*)::int` }).from(stepOwners);
  if ((existing?.count ?? 0) > 0) return 0;
  let named = 0;
  for (const owner of demoOwners) {
    try {
      await saveStepOwner({ db: ctx.db, actor: seeder }, { ...owner, reason: 'demo: who answers for this agent' });
      named += 1;
    } catch {
      // A step the seeded history does not have (a shorter history, another fleet): named when it appears.
    }
  }
  return named;
}
