import 'server-only';
import { eq } from 'drizzle-orm';
import { readReleaseGuards } from '@holdfast/engine/core';
import type { KillSwitchName } from '@holdfast/engine/core';
import type { Executor } from '@holdfast/engine/db';
import { killSwitches } from '@holdfast/engine/db/schema';
import { getStepOwners } from './step-owners';

/**
 * The held slot locks, stale ones first, each with the facts its release
 * guards rest on (the same reading force release makes inside its
 * transaction, so the page shows exactly why a release would pass or not),
 * and the owner of the agent whose run holds it.
 */
export async function listHeldLocks(db: Executor) {
  const locks = await readReleaseGuards(db);
  const agents = [...new Set(locks.flatMap((lock) => (lock.runAgent ? [lock.runAgent] : [])))];
  const owners = await getStepOwners(
    db,
    agents.map((agent) => ({ agent, step: '*' })),
  );
  return locks.map((lock) => ({ ...lock, owner: lock.runAgent ? owners.get(`${lock.runAgent}/*`) : undefined }));
}

/** A held lock as the Locks page lists it. */
export type HeldLock = Awaited<ReturnType<typeof listHeldLocks>>[number];

/** A kill switch as last set (who, when, why), or undefined if nobody ever set it (then it is off). */
export async function getKillSwitch(db: Executor, name: KillSwitchName) {
  const [row] = await db.select().from(killSwitches).where(eq(killSwitches.name, name));
  return row;
}
