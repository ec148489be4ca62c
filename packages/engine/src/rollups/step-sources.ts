import { sql } from 'drizzle-orm';
import type { Transaction } from '../db/client';

/**
 * Keeps step_sources, the console's source badges: each way (library, http, traces) a step's attempts reached
 * Holdfast, with the latest start among them; and step_cost_sources, each way they were costed. It reads the rows
 * the pass takes, those written by transactions from `fromXid` up to the pass's horizon (attempts_changed_xid_idx),
 * so recording an attempt writes nothing more.
 * A row read twice (rolled again after a crash, or begun and then finished) only moves last_seen_at forward, and
 * a row is written only when it does, so a busy step costs no dead row per pass.
 */
export async function noteStepSources(tx: Transaction, fromXid: string, horizon: string): Promise<void> {
  // How the same attempts were costed (step_cost_sources): the Steps page's cost source, kept the same way.
  await tx.execute(sql`
    insert into step_cost_sources (agent, step, cost_source, last_seen_at)
    select agent, step, coalesce(cost_source, 'unrecorded'), max(started_at) from attempts
    where changed_xid >= ${fromXid}::xid8 and changed_xid < ${horizon}::xid8 and outcome <> 'running'
    group by 1, 2, 3
    on conflict (agent, step, cost_source) do update set last_seen_at = excluded.last_seen_at
    where excluded.last_seen_at > step_cost_sources.last_seen_at`);
  await tx.execute(sql`
    insert into step_sources (agent, step, source, last_seen_at)
    select agent, step, source, max(started_at) from attempts
    where changed_xid >= ${fromXid}::xid8 and changed_xid < ${horizon}::xid8 and source is not null
    group by agent, step, source
    on conflict (agent, step, source) do update set last_seen_at = excluded.last_seen_at
    where excluded.last_seen_at > step_sources.last_seen_at`);
}
