import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import type { StepName } from '@holdfast/engine/rollups';

/** Where a step's owner comes from: an admin's row for the step, one for its agent, or what the agent declares. */
export type OwnerSource = 'step' | 'agent' | 'declared';

/** Who answers for a step, and how to reach them. */
export interface StepOwnerView {
  /** `team:<name>` or `person:<email>`; null when nothing names one. */
  owner: string | null;
  source: OwnerSource | null;
  /** The on-call contact and runbook of the admin's row that names the owner. */
  contact: string | null;
  runbookUrl: string | null;
  /** What the agent declares (its newest task's owner), shown beside an admin's choice. */
  declared: string | null;
  /** The enabled alert channels routed to the owner's team: where its alerts go. */
  channels: string[];
}

export const NO_OWNER: StepOwnerView = {
  owner: null,
  source: null,
  contact: null,
  runbookUrl: null,
  declared: null,
  channels: [],
};

const ownerKey = (agent: string, step: string) => `${agent}/${step}`;

/**
 * Each step's owner, keyed `agent/step`: the admin's row for the step, else the one for its agent (step `*`),
 * else the owner of the agent's newest task (what its begins declare; one index probe per agent). A traced
 * agent that never began a step declares none.
 */
export async function getStepOwners(db: Executor, steps: StepName[]): Promise<Map<string, StepOwnerView>> {
  const owners = new Map<string, StepOwnerView>();
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
        select owner from task_budgets where task_budgets.agent = agents.agent order by created_at desc limit 1
      ) newest
    ),
    chosen as (
      select wanted.agent, wanted.step, declared.owner as declared,
        coalesce(for_step.owner, for_agent.owner, declared.owner) as owner,
        case when for_step.owner is not null then 'step' when for_agent.owner is not null then 'agent'
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
    owners.set(ownerKey(row.agent, row.step), {
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

/** One step's owner. */
export async function getStepOwner(db: Executor, names: StepName): Promise<StepOwnerView> {
  return (await getStepOwners(db, [names])).get(ownerKey(names.agent, names.step)) ?? NO_OWNER;
}

/** The rows an admin wrote for this step and for its agent: what the owner form starts from and may remove. */
export async function getNamedOwners(
  db: Executor,
  names: StepName,
): Promise<{ forStep?: NamedOwner; forAgent?: NamedOwner }> {
  const rows = await db.execute<{
    step: string;
    owner: string;
    contact: string | null;
    runbook_url: string | null;
    updated_by: string;
    updated_at: Date | string;
  }>(sql`
    select step, owner, contact, runbook_url, updated_by, updated_at from step_owners
    where agent = ${names.agent} and step in (${names.step}, '*')`);
  const named = (row: (typeof rows)[number]): NamedOwner => ({
    owner: row.owner,
    contact: row.contact,
    runbookUrl: row.runbook_url,
    updatedBy: row.updated_by,
    updatedAt: new Date(row.updated_at).toISOString(),
  });
  const forStep = rows.find((row) => row.step === names.step && names.step !== '*');
  const forAgent = rows.find((row) => row.step === '*');
  return { forStep: forStep && named(forStep), forAgent: forAgent && named(forAgent) };
}

/** An owner row as the console shows and edits it. */
export interface NamedOwner {
  owner: string;
  contact: string | null;
  runbookUrl: string | null;
  updatedBy: string;
  updatedAt: string;
}

/** The teams an owner may name: those people are in, and those an alert channel is routed to, as `team:<name>`. */
export async function listOwnerTeams(db: Executor): Promise<string[]> {
  const rows = await db.execute<{ owner: string }>(sql`
    select 'team:' || name as owner from teams
    union select 'team:' || team from alert_channels where team is not null and deleted_at is null
    order by owner`);
  return rows.map((row) => row.owner);
}
