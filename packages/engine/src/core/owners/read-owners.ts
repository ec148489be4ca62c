import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';

/** Where a step's owner comes from: an admin's row for the step, one for its agent, or what the agent declares. */
export type OwnerSource = 'step' | 'agent' | 'declared';

/** Who answers for a step, and how to reach them. */
export interface ResolvedOwner {
  /** `team:<name>` or `person:<email>`; null when nothing names one. */
  owner: string | null;
  source: OwnerSource | null;
  /** The on-call contact and runbook of the admin's row that names the owner. */
  contact: string | null;
  runbookUrl: string | null;
  /** What the agent declares (its newest task's owner, or its spans' `holdfast.owner`), shown beside an admin's choice. */
  declared: string | null;
  /** The enabled alert channels routed to the owner's team: where its alerts go. */
  channels: string[];
}

/**
 * Each step's owner, keyed `agent/step`: the admin's row for the step, else the one for its agent (step `*`),
 * else what the agent declared last: its newest task's owner (what its begins declare) or the `holdfast.owner` of
 * its spans' resource (agent_releases), whichever was said later (one index probe each per agent). Steps given as
 * `*` read an agent's own owner.
 */
export async function readStepOwners(
  db: Executor,
  steps: { agent: string; step: string }[],
): Promise<Map<string, ResolvedOwner>> {
  const owners = new Map<string, ResolvedOwner>();
  if (steps.length === 0) return owners;
  const pairs = steps.map(({ agent, step }) => sql`(${agent}::text, ${step}::text)`);
  const rows = await db.execute<{
    agent: string;
    step: string;
    owner: string | null;
    source: OwnerSource | null;
    contact: string | null;
    runbook_url: string | null;
    declared: string | null;
    channels: string[];
  }>(sql`
    with wanted as (select distinct agent, step from (values ${sql.join(pairs, sql`, `)}) as wanted(agent, step)),
    declared as (
      select agents.agent, newest.owner
      from (select distinct agent from wanted) agents
      cross join lateral (
        select owner from (
          (select owner, created_at as said_at from task_budgets
            where task_budgets.agent = agents.agent order by created_at desc limit 1)
          union all
          (select owner, last_seen_at from agent_releases
            where agent_releases.agent = agents.agent and owner is not null order by last_seen_at desc limit 1)
        ) said order by said_at desc limit 1
      ) newest
    ),
    chosen as (
      select wanted.agent, wanted.step, declared.owner as declared,
        coalesce(for_step.owner, for_agent.owner, declared.owner) as owner,
        case when for_step.owner is not null and wanted.step <> '*' then 'step'
          when for_step.owner is not null or for_agent.owner is not null then 'agent'
          when declared.owner is not null then 'declared' end as source,
        coalesce(for_step.contact, case when for_step.owner is null then for_agent.contact end) as contact,
        coalesce(for_step.runbook_url, case when for_step.owner is null then for_agent.runbook_url end) as runbook_url
      from wanted
      left join step_owners for_step on for_step.agent = wanted.agent and for_step.step = wanted.step
      left join step_owners for_agent on for_agent.agent = wanted.agent and for_agent.step = '*'
      left join declared on declared.agent = wanted.agent
    )
    select chosen.*,
      coalesce((
        select array_agg(channel.name order by channel.name) from alert_channels channel
        where channel.deleted_at is null and channel.enabled and 'team:' || channel.team = chosen.owner
      ), '{}') as channels
    from chosen`);
  for (const row of rows) {
    owners.set(`${row.agent}/${row.step}`, {
      owner: row.owner,
      source: row.source,
      contact: row.contact,
      runbookUrl: row.runbook_url,
      declared: row.declared,
      channels: row.channels,
    });
  }
  return owners;
}
