import { sql } from 'drizzle-orm';
import {
  bigserial,
  check,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import type { Role, TokenScope } from '@holdfast/protocol/enums';
export { roles, tokenScopes, type Role, type TokenScope } from '@holdfast/protocol/enums';

/** The people who use the console. Their id in holds and audit records is `person:<email>`. */
export const people = pgTable(
  'people',
  {
    email: text('email').primaryKey(),
    displayName: text('display_name').notNull(),
    role: text('role').$type<Role>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    /**
     * Sessions carry the version they were signed with; raising it (sign-out, a role
     * change, "sign out everywhere") ends every session signed before, at once.
     */
    sessionVersion: integer('session_version').notNull().default(1),
  },
  (table) => [
    check('people_role_known', sql`${table.role} in ('viewer', 'responder', 'admin')`),
    check('people_email_lowercase', sql`${table.email} = lower(${table.email}) and ${table.email} like '%@%'`),
  ],
);

export const teams = pgTable('teams', {
  /** Referenced by holds as `team:<name>`. */
  name: text('name').primaryKey(),
  displayName: text('display_name').notNull(),
});

export const teamMembers = pgTable(
  'team_members',
  {
    team: text('team')
      .notNull()
      .references(() => teams.name, { onDelete: 'cascade' }),
    email: text('email')
      .notNull()
      .references(() => people.email, { onDelete: 'cascade' }),
  },
  (table) => [
    primaryKey({ name: 'team_members_pkey', columns: [table.team, table.email] }),
    // Serves "which teams is this person in", on every request.
    index('team_members_email_idx').on(table.email),
  ],
);

/** Credentials for agents calling the HTTP API. Only a hash of the secret is kept. */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    name: text('name').notNull(),
    /** SHA-256 of the whole token, hex. */
    tokenHash: text('token_hash').notNull().unique('api_tokens_token_hash_key'),
    /** The token's first characters, so people can tell tokens apart. */
    prefix: text('prefix').notNull(),
    scopes: text('scopes').array().$type<TokenScope[]>().notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedBy: text('revoked_by'),
    /** When set, the token acts only for these agents (null: any agent). */
    allowedAgents: text('allowed_agents').array(),
    /** When set, the token acts only on these queues (null: any queue). */
    allowedQueues: text('allowed_queues').array(),
    /**
     * The token's request rate (its bucket's refill per second) and burst (the bucket's size); null: the
     * deployment's default (HOLDFAST_AGENT_RATE_PER_SECOND, HOLDFAST_AGENT_RATE_BURST). See api-tokens-rate-limit.ts.
     */
    ratePerSecond: doublePrecision('rate_per_second'),
    rateBurst: integer('rate_burst'),
  },
  (table) => [
    check(
      'api_tokens_scopes_known',
      sql`${table.scopes} <@ array['ingest', 'read', 'metrics', 'traces']::text[] and cardinality(${table.scopes}) > 0`,
    ),
    check(
      'api_tokens_rate_per_second_range',
      sql`${table.ratePerSecond} is null or (${table.ratePerSecond} >= 0.01 and ${table.ratePerSecond} <= 100000)`,
    ),
    check('api_tokens_rate_burst_range', sql`${table.rateBurst} is null or ${table.rateBurst} between 1 and 1000000`),
  ],
);

export type Person = typeof people.$inferSelect;
export type ApiToken = typeof apiTokens.$inferSelect;
