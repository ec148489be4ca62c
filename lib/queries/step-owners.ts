import 'server-only';
import { sql } from 'drizzle-orm';
import type { Executor } from '@holdfast/engine/db';
import type { StepName } from '@holdfast/engine/rollups';
import { type OwnerSource, type ResolvedOwner, readStepOwners } from '@holdfast/engine/core';

/** Who answers for a step, and how to reach them (packages/engine/src/core/owners/read-owners.ts). */
export type StepOwnerView = ResolvedOwner;
export type { OwnerSource };

export const NO_OWNER: StepOwnerView = {
  owner: null,
  source: null,
  contact: null,
  runbookUrl: null,
  declared: null,
  channels: [],
};

const ownerKey = (agent: string, step: string) => `${agent}/${step}`;

/** Each step's owner, keyed `agent/step`: the step's own, its agent's, or what its agent declares. */
export function getStepOwners(db: Executor, steps: StepName[]): Promise<Map<string, StepOwnerView>> {
  return readStepOwners(db, steps);
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

/**
 * The owners the agents answer to (each agent's own or declared owner) and those named for one of their steps:
 * the Steps page's owner filter, read without resolving every step's owner.
 */
export async function listOwnerChoices(db: Executor, agents: string[]): Promise<string[]> {
  if (agents.length === 0) return [];
  const [agentOwners, stepRows] = await Promise.all([
    getStepOwners(
      db,
      agents.map((agent) => ({ agent, step: '*' })),
    ),
    db.execute<{ owner: string }>(sql`
      select distinct owner from step_owners
      where step <> '*' and agent in (${sql.join(
        agents.map((agent) => sql`${agent}`),
        sql`, `,
      )})`),
  ]);
  const owners = [...agentOwners.values()].flatMap((view) => (view.owner ? [view.owner] : []));
  return [...new Set([...owners, ...stepRows.map((row) => row.owner)])].sort();
}

/**
 * The `holdfast.owner` an agent's spans declared last when it names no team or person (kept refused by trace
 * ingest, packages/engine/src/traces/store-releases.ts), so its page can say why the declaration was not taken;
 * null when its latest word was taken, or it said none.
 */
export async function getRefusedOwnerDeclaration(db: Executor, agent: string): Promise<string | null> {
  const [latest] = await db.execute<{ refused_owner: string | null }>(sql`
    select refused_owner from agent_releases where agent = ${agent}
      and (owner is not null or refused_owner is not null)
    order by last_seen_at desc limit 1`);
  return latest?.refused_owner ?? null;
}
