import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import { arrayParam } from '@holdfast/engine/core';
import { instanceColumns, isSilenced, matchingSilenceId } from '@holdfast/engine/db';

/** What the sidebar counts beside its links: what waits for someone now. */
export interface AttentionCounts {
  /**
   * Firing alerts nobody on call has acknowledged (an acknowledgement past its time counts as none) and no silence
   * in force matches.
   */
  firingAlerts: number;
  /** Open holds owned by the person or one of their teams. */
  myOpenHolds: number;
  pendingDeadLetters: number;
}

/** An alert someone on call has now (packages/engine/src/alerts/acknowledge-input.ts says the same in TypeScript). */
const acknowledged = sql`(acknowledged_by is not null and (acknowledged_until is null or acknowledged_until > now()))`;

/** A firing alert waits for someone: nobody has it, and no silence in force at `now` matches it. */
const unattended = (now: Date) => sql`(not ${acknowledged} and not ${isSilenced(instanceColumns, now)})`;

/**
 * The three counts in one statement (one snapshot); `owners` are the person's own owner names. `now` decides
 * which silences are in force (the database's clock decides acknowledgements, as they were given by it).
 */
export async function getAttentionCounts(
  db: Executor,
  owners: string[],
  now: Date = new Date(),
): Promise<AttentionCounts> {
  const [row] = await db.execute<{ firing: number; mine: number; dead: number }>(sql`
    select
      (select count(*)::int from alert_instances where status = 'firing' and ${unattended(now)}) as firing,
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
  /** The silence in force that matches it (the longest-lasting), or null. */
  silence: { createdBy: string; endsAt: Date; reason: string } | null;
}

/**
 * Alerts firing now (the Overview's incident panel): those waiting for someone first, then the acknowledged ones,
 * then the silenced ones, each the longest-firing first. `total` counts every firing alert, `unattended` those
 * nobody has acknowledged and no silence matches, `silenced` those a silence in force at `now` matches.
 */
export async function listFiringAlerts(
  db: Executor,
  limit: number,
  now: Date = new Date(),
): Promise<{ alerts: FiringAlert[]; total: number; unattended: number; silenced: number }> {
  const silenceId = matchingSilenceId(instanceColumns, now);
  const rows = await db.execute<{
    id: number;
    title: string;
    link: string;
    fired_at: Date;
    is_acknowledged: boolean;
    acknowledged_by: string | null;
    acknowledged_until: Date | null;
    silenced_by: string | null;
    silenced_until: Date | null;
    silence_reason: string | null;
    total: number;
    unattended: number;
    silenced: number;
  }>(sql`
    select listed.*, silence.created_by as silenced_by, silence.ends_at as silenced_until,
      silence.reason as silence_reason,
      count(*) over ()::int as total,
      (count(*) filter (where not listed.is_acknowledged and listed.silence_id is null) over ())::int as unattended,
      (count(*) filter (where listed.silence_id is not null) over ())::int as silenced
    from (
      select id, title, link, fired_at, ${acknowledged} as is_acknowledged, acknowledged_by, acknowledged_until,
        ${silenceId} as silence_id
      from alert_instances where status = 'firing'
    ) listed
    left join alert_silences silence on silence.id = listed.silence_id
    order by listed.silence_id is not null, listed.is_acknowledged, listed.fired_at, listed.id
    limit ${limit}`);
  return {
    alerts: rows.map((row) => ({
      id: Number(row.id),
      title: row.title,
      link: row.link,
      firedAt: new Date(row.fired_at),
      acknowledgedBy: row.is_acknowledged ? row.acknowledged_by : null,
      acknowledgedUntil: row.is_acknowledged && row.acknowledged_until ? new Date(row.acknowledged_until) : null,
      silence:
        row.silenced_by && row.silenced_until
          ? { createdBy: row.silenced_by, endsAt: new Date(row.silenced_until), reason: row.silence_reason ?? '' }
          : null,
    })),
    total: rows[0]?.total ?? 0,
    unattended: rows[0]?.unattended ?? 0,
    silenced: rows[0]?.silenced ?? 0,
  };
}
