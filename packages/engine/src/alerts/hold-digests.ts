import { sql } from 'drizzle-orm';
import { cutToLength } from '@holdfast/protocol/validation';
import type { Executor } from '../db/client';
import type { AlertKind } from '../db/schema';
import { MAX_ALERT_DETAIL, MAX_ALERT_TITLE, type AlertCondition } from './conditions';
import { fireInstance } from './fire-instance';

/**
 * Hold alerts are coalesced: any agent may open holds, as many as it likes,
 * naming any team, and one notification per hold would let it flood a team's
 * channel. So a kind listed here notifies at most once per owner team per
 * window. The first hold after a quiet window is announced at once; holds
 * opened within the window wait, and the first pass after it announces them
 * all in one notification carrying their count. No hold goes unannounced, and
 * none is announced twice.
 *
 * The notification is one alert instance: its identity is its first hold's
 * (`hold:42`), `members` lists every hold it stands for, and it resolves when
 * the last of them is cleared (evaluate.ts reads `members`).
 */
export const COALESCED_KINDS: ReadonlySet<AlertKind> = new Set(['hold_opened']);

/** At most one notification per kind and team this often. */
export const COALESCE_WINDOW_MS = 10 * 60_000;

/**
 * Fires one coalesced instance per team for `fresh` (conditions holding now
 * that no firing instance stands for yet), unless that team was notified
 * within the window. The number fired and rows queued.
 */
export async function fireCoalesced(
  db: Executor,
  kind: AlertKind,
  fresh: AlertCondition[],
  now: Date,
  maxFired: number,
): Promise<{ fired: number; queued: number }> {
  const byTeam = new Map<string | null, AlertCondition[]>();
  for (const condition of fresh) byTeam.set(condition.team, [...(byTeam.get(condition.team) ?? []), condition]);
  const result = { fired: 0, queued: 0 };
  for (const [team, conditions] of byTeam) {
    if (result.fired >= maxFired) break;
    const queued = await fireForTeam(db, kind, team, conditions, now);
    if (queued === undefined) continue;
    result.fired += 1;
    result.queued += queued;
  }
  return result;
}

async function fireForTeam(
  db: Executor,
  kind: AlertKind,
  team: string | null,
  conditions: AlertCondition[],
  now: Date,
): Promise<number | undefined> {
  return db.transaction(async (tx) => {
    // Two evaluators at once: the second waits here, then sees the first's instance below.
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext('alerts.coalesce'), hashtext(${`${kind}/${team ?? ''}`}))`,
    );
    // Notified within the window before `now`. One fired "after" now (a clock stepped back) does not count:
    // a hold never waits for a clock to catch up.
    const nowSql = sql`${now.toISOString()}::timestamptz`;
    const [recent] = await tx.execute<{ notified: boolean }>(sql`
      select exists (
        select 1 from alert_instances
        where kind = ${kind} and team is not distinct from ${team}
          and fired_at > ${nowSql} - make_interval(secs => ${COALESCE_WINDOW_MS / 1_000}) and fired_at <= ${nowSql}
      ) as notified`);
    if (recent?.notified) return undefined;
    const announced = await tx.execute<{ identity: string }>(sql`
      select unnest(coalesce(members, array[identity])) as identity from alert_instances
      where kind = ${kind} and team is not distinct from ${team} and status = 'firing'`);
    const taken = new Set(announced.map((row) => row.identity));
    const members = conditions.filter((condition) => !taken.has(condition.identity));
    if (members.length === 0) return undefined;
    if (members.length === 1) return fireInstance(tx, kind, members[0]!, now);
    return fireInstance(
      tx,
      kind,
      digestOf(team, members),
      now,
      members.map((member) => member.identity),
    );
  });
}

/** One notification for several holds of a team: named by the first, counting them all. */
function digestOf(team: string | null, members: AlertCondition[]): AlertCondition {
  const first = members[0]!;
  const owners = team ? `team:${team}` : 'people (no team)';
  const links = new Set(members.map((member) => member.link));
  return {
    identity: first.identity,
    title: cutToLength(`${members.length} holds opened for ${owners}`, MAX_ALERT_TITLE),
    detail: cutToLength(
      `${members.length} holds were opened since this team's last hold alert; the Holds page lists them all. ` +
        `The first: ${first.title}. ${first.detail}`,
      MAX_ALERT_DETAIL,
    ),
    link: links.size === 1 ? first.link : '/holds',
    team,
  };
}
