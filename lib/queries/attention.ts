import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { arrayParam } from '../core/kernel/sql-arrays';

/** What the sidebar counts beside its links: what waits for someone now. */
export interface AttentionCounts {
  firingAlerts: number;
  /** Open holds owned by the person or one of their teams. */
  myOpenHolds: number;
  pendingDeadLetters: number;
}

/** The three counts in one statement (one snapshot); `owners` are the person's own owner names. */
export async function getAttentionCounts(db: Executor, owners: string[]): Promise<AttentionCounts> {
  const [row] = await db.execute<{ firing: number; mine: number; dead: number }>(sql`
    select
      (select count(*)::int from alert_instances where status = 'firing') as firing,
      (select count(*)::int from holds where status = 'open' and owner = any(${arrayParam(owners, 'text')})) as mine,
      (select count(*)::int from dead_letters where status = 'pending') as dead`);
  return { firingAlerts: row?.firing ?? 0, myOpenHolds: row?.mine ?? 0, pendingDeadLetters: row?.dead ?? 0 };
}

export interface FiringAlert {
  id: number;
  title: string;
  link: string;
  firedAt: Date;
}

/** Alerts firing now, the longest-firing first (the Overview's incident panel). */
export async function listFiringAlerts(db: Executor, limit: number): Promise<{ alerts: FiringAlert[]; total: number }> {
  const rows = await db.execute<{ id: number; title: string; link: string; fired_at: Date; total: number }>(sql`
    select id, title, link, fired_at, count(*) over ()::int as total from alert_instances
    where status = 'firing' order by fired_at, id limit ${limit}`);
  return {
    alerts: rows.map((row) => ({
      id: Number(row.id),
      title: row.title,
      link: row.link,
      firedAt: new Date(row.fired_at),
    })),
    total: rows[0]?.total ?? 0,
  };
}
