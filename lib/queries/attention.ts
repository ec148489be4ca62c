import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { arrayParam } from '../core/kernel/sql-arrays';

/** What the sidebar counts beside its links: what waits for someone now. */
export interface AttentionCounts {
  /** Firing alerts nobody on call has acknowledged (an acknowledgement past its time counts as none). */
  firingAlerts: number;
  /** Open holds owned by the person or one of their teams. */
  myOpenHolds: number;
  pendingDeadLetters: number;
}

/** An alert someone on call has now (lib/alerts/acknowledge-input.ts says the same in TypeScript). */
const acknowledged = sql`(acknowledged_by is not null and (acknowledged_until is null or acknowledged_until > now()))`;

/** The three counts in one statement (one snapshot); `owners` are the person's own owner names. */
export async function getAttentionCounts(db: Executor, owners: string[]): Promise<AttentionCounts> {
  const [row] = await db.execute<{ firing: number; mine: number; dead: number }>(sql`
    select
      (select count(*)::int from alert_instances where status = 'firing' and not ${acknowledged}) as firing,
      (select count(*)::int from holds where status = 'open' and owner = any(${arrayParam(owners, 'text')})) as mine,
      (select count(*)::int from dead_letters where status = 'pending') as dead`);
  return { firingAlerts: row?.firing ?? 0, myOpenHolds: row?.mine ?? 0, pendingDeadLetters: row?.dead ?? 0 };
}

export interface FiringAlert {
  id: number;
  title: string;
  link: string;
  firedAt: Date;
  /** Who on call has it now, and until when (null: until it resolves); null when nobody has. */
  acknowledgedBy: string | null;
  acknowledgedUntil: Date | null;
}

/**
 * Alerts firing now: those nobody has acknowledged first, then the acknowledged ones, each the longest-firing
 * first (the Overview's incident panel). `total` counts every firing alert, `unacknowledged` those nobody has.
 */
export async function listFiringAlerts(
  db: Executor,
  limit: number,
): Promise<{ alerts: FiringAlert[]; total: number; unacknowledged: number }> {
  const rows = await db.execute<{
    id: number;
    title: string;
    link: string;
    fired_at: Date;
    is_acknowledged: boolean;
    acknowledged_by: string | null;
    acknowledged_until: Date | null;
    total: number;
    unacknowledged: number;
  }>(sql`
    select id, title, link, fired_at, ${acknowledged} as is_acknowledged, acknowledged_by, acknowledged_until,
      count(*) over ()::int as total, (count(*) filter (where not ${acknowledged}) over ())::int as unacknowledged
    from alert_instances
    where status = 'firing' order by ${acknowledged}, fired_at, id limit ${limit}`);
  return {
    alerts: rows.map((row) => ({
      id: Number(row.id),
      title: row.title,
      link: row.link,
      firedAt: new Date(row.fired_at),
      acknowledgedBy: row.is_acknowledged ? row.acknowledged_by : null,
      acknowledgedUntil: row.is_acknowledged && row.acknowledged_until ? new Date(row.acknowledged_until) : null,
    })),
    total: rows[0]?.total ?? 0,
    unacknowledged: rows[0]?.unacknowledged ?? 0,
  };
}
