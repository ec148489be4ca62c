import 'server-only';
import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { holds } from '../db/schema';

/** Open holds, oldest first: the longest-waiting work is at the top. */
export async function listOpenHolds(db: Executor) {
  return db.select().from(holds).where(eq(holds.status, 'open')).orderBy(asc(holds.openedAt), asc(holds.id));
}
