import 'server-only';
import { type SQL, sql } from 'drizzle-orm';
import type { PauseScope } from '@holdfast/engine/db/schema';
import type { Executor } from '@holdfast/engine/db';

/** The window the backlog a pause holds back is counted over. */
export const BACKLOG_MINUTES = 15;
const RECENT_LIMIT = 20;

export type PauseState = 'paused' | 'ramping' | 'ended';

export interface PauseView {
  id: number;
  scope: PauseScope;
  agent: string | null;
  step: string | null;
  downstream: string | null;
  state: PauseState;
  reason: string;
  pausedBy: string;
  pausedAt: string;
  endsAt: string | null;
  resumedAt: string | null;
  resumedBy: string | null;
  rampStartPerMinute: number | null;
  rampEndsAt: string | null;
  /** Begins turned away in the last BACKLOG_MINUTES, and the distinct tasks behind them. */
  waitingBegins: number;
  waitingTasks: number;
}

interface PauseViewRow extends Record<string, unknown> {
  id: string;
  scope: PauseScope;
  agent: string | null;
  step: string | null;
  downstream: string | null;
  state: PauseState;
  reason: string;
  paused_by: string;
  paused_at: string;
  ends_at: string | null;
  resumed_at: string | null;
  resumed_by: string | null;
  ramp_start_per_minute: number | null;
  ramp_ends_at: string | null;
  waiting_begins: number;
  waiting_tasks: number;
}

/** The state a pause is in at `now`, as the begin gate reads it (packages/engine/src/core/pauses/pause-gate.ts). */
function stateSql(at: string) {
  return sql`case
    when p.resumed_at is null and (p.ends_at is null or p.ends_at > ${at}::timestamptz) then 'paused'
    when p.ramp_ends_at > ${at}::timestamptz then 'ramping'
    else 'ended' end`;
}

function toView(row: PauseViewRow): PauseView {
  const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());
  return {
    id: Number(row.id),
    scope: row.scope,
    agent: row.agent,
    step: row.step,
    downstream: row.downstream,
    state: row.state,
    reason: row.reason,
    pausedBy: row.paused_by,
    pausedAt: new Date(row.paused_at).toISOString(),
    endsAt: iso(row.ends_at),
    resumedAt: iso(row.resumed_at),
    resumedBy: row.resumed_by,
    rampStartPerMinute: row.ramp_start_per_minute,
    rampEndsAt: iso(row.ramp_ends_at),
    waitingBegins: row.waiting_begins,
    waitingTasks: row.waiting_tasks,
  };
}

async function readPauses(db: Executor, now: Date, where: SQL, limit: number): Promise<PauseView[]> {
  const at = now.toISOString();
  const rows = await db.execute<PauseViewRow>(sql`
    select p.id, p.scope, p.agent, p.step, p.downstream, ${stateSql(at)} as state, p.reason, p.paused_by, p.paused_at,
      p.ends_at, p.resumed_at, p.resumed_by, p.ramp_start_per_minute, p.ramp_ends_at,
      coalesce(backlog.begins, 0)::int as waiting_begins, coalesce(backlog.tasks, 0)::int as waiting_tasks
    from pauses p
    left join lateral (
      select sum(w.waits) as begins, count(distinct w.task_id) as tasks
      from pause_wait_minutes w
      where w.pause_id = p.id
        and w.minute >= date_trunc('minute', ${at}::timestamptz - make_interval(mins => ${BACKLOG_MINUTES}), 'UTC')
    ) backlog on true
    where ${where}
    order by p.paused_at desc, p.id desc
    limit ${limit}`);
  return rows.map(toView);
}

/** Pauses that hold or ramp now (newest first), and the latest that ended. */
export async function listPauses(db: Executor, now: Date): Promise<{ current: PauseView[]; recent: PauseView[] }> {
  const at = now.toISOString();
  const [current, recent] = await Promise.all([
    readPauses(db, now, sql`${stateSql(at)} <> 'ended'`, 500),
    readPauses(db, now, sql`${stateSql(at)} = 'ended'`, RECENT_LIMIT),
  ]);
  return { current, recent };
}

/** The pauses holding or ramping now that cover a step: its own, and its agent's. */
export function pausesCoveringStep(db: Executor, names: { agent: string; step: string }, now: Date) {
  const at = now.toISOString();
  return readPauses(
    db,
    now,
    sql`p.agent = ${names.agent} and (p.scope = 'agent' or p.step = ${names.step}) and ${stateSql(at)} <> 'ended'`,
    50,
  );
}

/** What the Overview and Steps say of pauses: how many hold or ramp now, and what they cover. */
export interface PausesSummary {
  count: number;
  targets: string[];
  /** Begins the current pauses turned away in the last BACKLOG_MINUTES (a task held by two pauses counts in each). */
  waitingBegins: number;
}

export async function currentPausesSummary(db: Executor, now: Date): Promise<PausesSummary> {
  const current = await readPauses(db, now, sql`${stateSql(now.toISOString())} <> 'ended'`, 500);
  return {
    count: current.length,
    targets: current.slice(0, 5).map(pauseTargetText),
    waitingBegins: current.reduce((sum, pause) => sum + pause.waitingBegins, 0),
  };
}

export function pauseTargetText(pause: Pick<PauseView, 'scope' | 'agent' | 'step' | 'downstream'>): string {
  if (pause.scope === 'step') return `${pause.agent}/${pause.step}`;
  if (pause.scope === 'agent') return `agent ${pause.agent}`;
  return `downstream ${pause.downstream}`;
}
