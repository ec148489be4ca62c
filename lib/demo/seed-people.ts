import { sql } from 'drizzle-orm';
import {
  ensureTaskBudget,
  openHold,
  savePerson,
  type Actor,
  type CoreContext,
  type OpenHoldInput,
} from '@holdfast/engine/core';
import { holds, people } from '@holdfast/engine/db/schema';

/** One demo person per role, each in a team, for the demo sign-in page. */
export const demoPeople = [
  { email: 'vera@holdfast.demo', displayName: 'Vera Viewer', role: 'viewer', teams: ['payments'] },
  { email: 'remy@holdfast.demo', displayName: 'Remy Responder', role: 'responder', teams: ['growth'] },
  { email: 'ada@holdfast.demo', displayName: 'Ada Admin', role: 'admin', teams: ['platform'] },
] as const;

const seeder: Actor = { type: 'system', id: 'demo-seed' };
const demoAgent: Actor = { type: 'agent', id: 'demo-fleet', scopes: ['ingest'] };

/** A few open holds owned by different teams, so each demo role has something to act on (or not). */
const demoHolds: OpenHoldInput[] = [
  {
    itemType: 'task',
    itemId: 'refund-2291',
    reason: 'needs_approval',
    owner: 'team:payments',
    detail: 'Refund of $740 is above the $500 limit for automatic refunds',
  },
  {
    itemType: 'task',
    itemId: 'invoice-8841',
    reason: 'needs_secret',
    owner: 'team:payments',
    detail: 'The payment provider key for the EU account has expired',
  },
  {
    itemType: 'task',
    itemId: 'campaign-17',
    reason: 'policy_blocked',
    owner: 'team:growth',
    detail: 'Email copy mentions a competitor by name; policy needs a person to sign off',
  },
  {
    itemType: 'task',
    itemId: 'report-q4',
    reason: 'manual',
    owner: 'person:vera@holdfast.demo',
    detail: 'Check the Q4 summary numbers before it is sent to the board',
  },
];

export async function seedDemoPeopleIfEmpty(ctx: CoreContext): Promise<number> {
  const [existing] = await ctx.db.select({ any: sql<number>`1` }).from(people).limit(1);
  if (existing) return 0;
  for (const person of demoPeople)
    await savePerson({ db: ctx.db, actor: seeder }, { ...person, teams: [...person.teams] });
  return demoPeople.length;
}

export async function seedDemoHoldsIfEmpty(ctx: CoreContext): Promise<number> {
  const [existing] = await ctx.db.select({ any: sql<number>`1` }).from(holds).limit(1);
  if (existing) return 0;
  for (const hold of demoHolds) {
    // A hold parks an item that exists (openHold refuses others): the demo tasks first.
    await ensureTaskBudget(ctx.db, { taskId: hold.itemId, agent: 'demo-fleet', owner: hold.owner });
    await openHold({ db: ctx.db, actor: demoAgent }, hold);
  }
  return demoHolds.length;
}
