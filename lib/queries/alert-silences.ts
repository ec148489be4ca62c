import 'server-only';
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import { instanceColumns, isSilenced, isSilencedBy } from '@holdfast/engine/db';
import type { Executor } from '@holdfast/engine/db';
import { alertInstances, alertSilences, type AlertSilence } from '@holdfast/engine/db/schema';

/** A silence as the console lists it, with how many firing alerts it matches now (0 once it is over). */
export interface SilenceRow extends AlertSilence {
  /** In force at the moment read: started, not past its end, not ended early. */
  active: boolean;
  matchingFiring: number;
}

export interface SilenceList {
  /** In force now, the soonest to end first. */
  active: SilenceRow[];
  /** Over (ran out or ended early), the latest to end first, at most `pastLimit`. */
  past: SilenceRow[];
  totalPast: number;
}

const at = (now: Date) => sql`${now.toISOString()}::timestamptz`;
const inForce = (now: Date) =>
  sql`(${alertSilences.endedAt} is null and ${alertSilences.startsAt} <= ${at(now)} and ${alertSilences.endsAt} > ${at(now)})`;

/** The Alerts page's Silences tab: those in force at `now`, and the latest of those over. */
export async function listSilences(
  db: Executor,
  { now, pastLimit = 20 }: { now: Date; pastLimit?: number },
): Promise<SilenceList> {
  const matching = sql<number>`(select count(*)::int from alert_instances
    where alert_instances.status = 'firing' and ${isSilencedBy(sql`${alertSilences.id}`, instanceColumns, now)})`;
  const [active, past, [pastTotal]] = await Promise.all([
    db
      .select({ silence: alertSilences, matchingFiring: matching })
      .from(alertSilences)
      .where(inForce(now))
      .orderBy(alertSilences.endsAt, alertSilences.id),
    db
      .select({ silence: alertSilences })
      .from(alertSilences)
      .where(sql`not ${inForce(now)}`)
      .orderBy(desc(sql`coalesce(${alertSilences.endedAt}, ${alertSilences.endsAt})`), desc(alertSilences.id))
      .limit(pastLimit),
    db
      .select({ n: count() })
      .from(alertSilences)
      .where(sql`not ${inForce(now)}`),
  ]);
  return {
    active: active.map((row) => ({ ...row.silence, active: true, matchingFiring: row.matchingFiring })),
    past: past.map((row) => ({ ...row.silence, active: false, matchingFiring: 0 })),
    totalPast: pastTotal?.n ?? 0,
  };
}

/** The silences with these ids (those the history names), by id. */
export async function readSilencesById(db: Executor, ids: number[]): Promise<Map<number, AlertSilence>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.select().from(alertSilences).where(inArray(alertSilences.id, unique));
  return new Map(rows.map((row) => [row.id, row]));
}

/** How many firing alerts a silence in force at `now` matches (the Alerts page's summary). */
export async function countSilencedFiring(db: Executor, now: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(alertInstances)
    .where(and(eq(alertInstances.status, 'firing'), isSilenced(instanceColumns, now)));
  return row?.n ?? 0;
}
