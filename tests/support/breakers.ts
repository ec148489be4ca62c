import { eq } from 'drizzle-orm';
import { beforeAll } from 'vitest';
import { saveBreakerSettings } from '../../packages/engine/src/core';
import { breakerEvents } from '../../packages/engine/src/db/schema';
import { aPerson } from './actors';
import type { useTestDatabase } from './test-database';

/** Breakers that judge a minute: open at half failing once `minimumVolume` attempts are seen, rest 30 s, one probe. */
export function useBreakerSettings(database: ReturnType<typeof useTestDatabase>, minimumVolume: number) {
  beforeAll(async () => {
    await saveBreakerSettings(
      { db: database.db, actor: aPerson('admin', 'ada@example.com') },
      { windowSeconds: 60, failurePercent: 50, minimumVolume, coolDownSeconds: 30, probes: 1, reason: 'test values' },
    );
  });
}

/** What a breaker went through, in order: opened, probing, closed... */
export async function breakerEventsOf(database: ReturnType<typeof useTestDatabase>, target: string) {
  const rows = await database.db
    .select({ event: breakerEvents.event })
    .from(breakerEvents)
    .where(eq(breakerEvents.target, target))
    .orderBy(breakerEvents.id);
  return rows.map((row) => row.event);
}
