import 'server-only';
import { eq } from 'drizzle-orm';
import { readReleaseGuards } from '@holdfast/engine/core';
import type { KillSwitchName } from '@holdfast/engine/core';
import type { Executor } from '@holdfast/engine/db';
import { killSwitches } from '@holdfast/engine/db/schema';

/**
 * The held slot locks, stale ones first, each with the facts its release
 * guards rest on: the same reading force release makes inside its
 * transaction, so the page shows exactly why a release would pass or not.
 */
export function listHeldLocks(db: Executor) {
  return readReleaseGuards(db);
}

/** A kill switch as last set (who, when, why), or undefined if nobody ever set it (then it is off). */
export async function getKillSwitch(db: Executor, name: KillSwitchName) {
  const [row] = await db.select().from(killSwitches).where(eq(killSwitches.name, name));
  return row;
}
