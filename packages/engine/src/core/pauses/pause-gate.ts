import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/client';
import type { PauseScope } from '../../db/schema';

/**
 * The pause gate a begin passes (begin-step.ts). A pause that holds turns the
 * begin away with a wait (`PAUSED`); a pause resumed with a ramp lets through a
 * rising number of begins per minute, counted in the begin's own transaction
 * so that a begin refused later (budget, pool) gives its grant back.
 */

/** How often an agent held by a pause with no end time asks again. */
export const PAUSED_POLL_MS = 30_000;
const MINUTE_MS = 60_000;

export interface PauseFacts {
  id: number;
  scope: PauseScope;
  /** `agent/step`, `agent` or the downstream's name, as people read it. */
  target: string;
  reason: string;
  pausedBy: string;
  pausedAt: string;
  endsAt: string | null;
}

export interface RampingPause extends PauseFacts {
  resumedAt: Date;
  startPerMinute: number;
  rampEndsAt: Date;
}

export type PauseGate =
  | { kind: 'open' }
  | { kind: 'paused'; pause: PauseFacts }
  | { kind: 'ramping'; ramps: RampingPause[] };

/** A pause as pausesCoveringSql reads it: times as text (a raw statement's, or JSON's). */
export interface PauseRow extends Record<string, unknown> {
  id: string | number;
  scope: PauseScope;
  agent: string | null;
  step: string | null;
  downstream: string | null;
  reason: string;
  paused_by: string;
  paused_at: string;
  ends_at: string | null;
  resumed_at: string | null;
  ramp_start_per_minute: number | null;
  ramp_ends_at: string | null;
}

export function pauseTargetLabel(pause: Pick<PauseRow, 'scope' | 'agent' | 'step' | 'downstream'>): string {
  if (pause.scope === 'step') return `${pause.agent}/${pause.step}`;
  return (pause.scope === 'agent' ? pause.agent : pause.downstream) ?? '';
}

/** What the pause gate reads of a begin: its names and its moment, as values or a statement's placeholders. */
export interface PausedBegin {
  agent: SQLWrapper;
  step: SQLWrapper;
  downstream: SQLWrapper;
  at: SQLWrapper;
}

/**
 * The pauses that cover a begin at its moment, as a subquery (begin-reads.ts reads it with the task and its key):
 * a pause of its agent, of its step, or of the downstream it names, begun and neither ended nor resumed, or
 * resumed with a ramp still running.
 */
export function pausesCoveringSql(begin: PausedBegin): SQL {
  return sql`
    select id, scope, agent, step, downstream, reason, paused_by, paused_at, ends_at, resumed_at,
      ramp_start_per_minute, ramp_ends_at
    from pauses
    where ((agent = ${begin.agent}::text and (scope = 'agent' or step = ${begin.step}::text))
        or downstream = ${begin.downstream}::text)
      and paused_at <= ${begin.at}::timestamptz
      and ((resumed_at is null and (ends_at is null or ends_at > ${begin.at}::timestamptz))
        or ramp_ends_at > ${begin.at}::timestamptz)`;
}

/**
 * The gate of the pauses that cover a begin (pausesCoveringSql's rows, in the order they began): a holding one
 * turns it away, else ramping ones each let it through if their minute has room.
 */
export function pauseGateOf(rows: readonly PauseRow[]): PauseGate {
  const holding = rows.find((row) => row.resumed_at === null);
  if (holding) return { kind: 'paused', pause: pauseFacts(holding) };
  if (rows.length === 0) return { kind: 'open' };
  return {
    kind: 'ramping',
    ramps: rows.map((row) => ({
      ...pauseFacts(row),
      resumedAt: new Date(row.resumed_at as string),
      startPerMinute: row.ramp_start_per_minute as number,
      rampEndsAt: new Date(row.ramp_ends_at as string),
    })),
  };
}

function pauseFacts(row: PauseRow): PauseFacts {
  return {
    id: Number(row.id),
    scope: row.scope,
    target: pauseTargetLabel(row),
    reason: row.reason,
    pausedBy: row.paused_by,
    pausedAt: new Date(row.paused_at).toISOString(),
    endsAt: row.ends_at === null ? null : new Date(row.ends_at).toISOString(),
  };
}

/** When the agent held by this pause should ask again: at its end if that is sooner than the usual poll. */
export function pausedRetryAfterMs(pause: PauseFacts, now: Date): number {
  if (pause.endsAt === null) return PAUSED_POLL_MS;
  return Math.max(0, Math.min(PAUSED_POLL_MS, new Date(pause.endsAt).getTime() - now.getTime()));
}

/** The ramp's minute `now` falls in (counted from the resume, not the clock's minute) and the begins it lets through. */
export function rampMinute(
  ramp: RampingPause,
  now: Date,
): { minuteStart: Date; limit: number; nextMinuteInMs: number } {
  const minutesIn = Math.max(0, Math.floor((now.getTime() - ramp.resumedAt.getTime()) / MINUTE_MS));
  const minuteStart = new Date(ramp.resumedAt.getTime() + minutesIn * MINUTE_MS);
  return {
    minuteStart,
    limit: ramp.startPerMinute * (minutesIn + 1),
    nextMinuteInMs: minuteStart.getTime() + MINUTE_MS - now.getTime(),
  };
}

/**
 * Takes one begin from the ramp's current minute, one guarded upsert; false when
 * the minute's limit is reached. In the begin's transaction: a refusal later in
 * the begin rolls the grant back with everything else.
 */
export async function takeRampGrant(tx: Transaction, ramp: RampingPause, now: Date): Promise<boolean> {
  const { minuteStart, limit } = rampMinute(ramp, now);
  const [granted] = await tx.execute<{ granted: number }>(sql`
    insert into pause_ramp_minutes (pause_id, minute, granted)
    values (${ramp.id}::bigint, ${minuteStart.toISOString()}::timestamptz, 1)
    on conflict (pause_id, minute) do update set granted = pause_ramp_minutes.granted + 1
      where pause_ramp_minutes.granted < ${limit}::int
    returning granted`);
  return granted !== undefined;
}

/**
 * Counts a begin a pause or ramp turned away, for the backlog the console shows
 * (waiting begins and the distinct tasks behind them, per minute). A failure is
 * swallowed: the wait is the agent's answer and must not become an error
 * because a count could not be written.
 */
export async function countPausedBegin(db: Executor, pauseId: number, taskId: string, now: Date): Promise<void> {
  try {
    await db.execute(sql`
      insert into pause_wait_minutes (pause_id, minute, task_id, waits)
      values (${pauseId}::bigint, date_trunc('minute', ${now.toISOString()}::timestamptz, 'UTC'), ${taskId}::text, 1)
      on conflict (pause_id, minute, task_id) do update set waits = pause_wait_minutes.waits + 1`);
  } catch {
    // See above.
  }
}
