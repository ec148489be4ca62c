import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import type { TimeRange } from '@holdfast/protocol/time-window';
import { type AgentFigures, readAgentFigures } from './step-figures';
import { getStepOwners, NO_OWNER, type StepOwnerView } from './step-owners';

/** What waits for a person about an agent's work now: its open holds, and its dead letters not yet redriven. */
export interface AgentWaiting {
  openHolds: number;
  deadLetters: number;
  /** Pauses holding or ramping the agent or one of its steps now. */
  pauses: number;
  /** Its steps' breakers open or probing now. */
  openBreakers: number;
}

export interface AgentRow extends AgentFigures {
  /** Who answers for the agent: an admin's owner for all its steps, else what the agent declares. */
  owner: StepOwnerView;
  waiting: AgentWaiting;
}

const NOTHING_WAITING: AgentWaiting = { openHolds: 0, deadLetters: 0, pauses: 0, openBreakers: 0 };

/**
 * Every agent with attempts in the window: its steps' figures summed (and the window before's), its owner, and
 * what of its work waits for a person now. One agent when `agent` is given (its page).
 */
export async function getAgentRows(
  db: Executor,
  range: TimeRange & { agent?: string },
  now: Date,
): Promise<AgentRow[]> {
  const figures = await readAgentFigures(db, range);
  if (figures.length === 0) return [];
  const agents = figures.map((row) => row.agent);
  const [owners, waiting] = await Promise.all([
    getStepOwners(
      db,
      agents.map((agent) => ({ agent, step: '*' })),
    ),
    readWaiting(db, agents, now),
  ]);
  return figures.map((row) => {
    const owner = owners.get(`${row.agent}/*`) ?? NO_OWNER;
    return {
      ...row,
      owner,
      waiting: waiting.get(row.agent) ?? NOTHING_WAITING,
    };
  });
}

/** Open holds on the agents' tasks and dead letters, their pending dead letters, pauses and open breakers now. */
async function readWaiting(db: Executor, agents: string[], now: Date): Promise<Map<string, AgentWaiting>> {
  const list = sql.join(
    agents.map((agent) => sql`${agent}::text`),
    sql`, `,
  );
  const rows = await db.execute<{
    agent: string;
    open_holds: number;
    dead_letters: number;
    pauses: number;
    open_breakers: number;
  }>(sql`
    with wanted(agent) as (select unnest(array[${list}]))
    select wanted.agent,
      (select count(*)::int from holds
        join task_budgets on holds.item_type = 'task' and task_budgets.task_id = holds.item_id
        where holds.status = 'open' and task_budgets.agent = wanted.agent)
      + (select count(*)::int from holds
        join dead_letters on holds.item_type = 'dead_letter' and dead_letters.id::text = holds.item_id
        where holds.status = 'open' and dead_letters.agent = wanted.agent) as open_holds,
      (select count(*)::int from dead_letters where status = 'pending' and agent = wanted.agent) as dead_letters,
      (select count(*)::int from pauses
        where agent = wanted.agent
          and ((resumed_at is null and (ends_at is null or ends_at > ${now.toISOString()}::timestamptz))
            or ramp_ends_at > ${now.toISOString()}::timestamptz)) as pauses,
      (select count(*)::int from circuit_breakers where agent = wanted.agent and state <> 'closed') as open_breakers
    from wanted`);
  return new Map(
    rows.map((row) => [
      row.agent,
      {
        openHolds: Number(row.open_holds),
        deadLetters: Number(row.dead_letters),
        pauses: Number(row.pauses),
        openBreakers: Number(row.open_breakers),
      },
    ]),
  );
}
