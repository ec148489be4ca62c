import { sql } from 'drizzle-orm';
import { check, index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * What a traced agent's spans say about it, per version: the resource's `service.version` ('' when it names none)
 * and `holdfast.owner`. A version's first sighting is a deploy-like event marked on the charts; the owner of the
 * version seen last is what the agent declares (packages/engine/src/core/owners/read-owners.ts). Written by trace
 * ingest for agents the exporter may write for (packages/engine/src/traces/store-releases.ts), bounded per agent.
 */
export const agentReleases = pgTable(
  'agent_releases',
  {
    agent: text('agent').notNull(),
    version: text('version').notNull(),
    /** `team:<name>` or `person:<email>`, as `holdfast.owner` declares it; null when it declares none. */
    owner: text('owner'),
    /** A `holdfast.owner` that names no team or person: kept (cut) to say why it was not taken. */
    refusedOwner: text('refused_owner'),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ name: 'agent_releases_pkey', columns: [table.agent, table.version] }),
    index('agent_releases_agent_last_seen_idx').on(table.agent, table.lastSeenAt.desc()),
    check('agent_releases_owner_named', sql`${table.owner} ~ '^(person|team):.+'`),
    check('agent_releases_version_length', sql`char_length(${table.version}) <= 128`),
    check('agent_releases_refused_owner_length', sql`char_length(${table.refusedOwner}) <= 200`),
  ],
);

export type AgentRelease = typeof agentReleases.$inferSelect;
