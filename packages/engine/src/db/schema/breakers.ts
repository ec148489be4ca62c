import { sql } from 'drizzle-orm';
import {
  bigserial,
  check,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/**
 * What a breaker watches: one step of an agent, or every step of one agent that names a downstream at begin
 * (each agent its own: another agent's failures never open it, nor its probes close it).
 */
export const breakerScopes = ['step', 'downstream'] as const;
export type BreakerScope = (typeof breakerScopes)[number];

/** closed: begins run; open: begins wait until the next probe; half_open: a few probes run, the rest wait. */
export const breakerStates = ['closed', 'open', 'half_open'] as const;
export type BreakerState = (typeof breakerStates)[number];

/** The error classes a breaker counts as the downstream failing (the others mean it answered). */
export const BREAKER_FAILURE_CLASSES = ['transient', 'rate_limited', 'timeout'] as const;

/**
 * One row per target a breaker has ever opened for (`step:<agent>/<step>` or
 * `downstream:<agent>/<name>`): its state, shared by every instance. A target with no
 * row is closed. The key and the names it is made of agree (circuit_breakers_target_names).
 */
export const circuitBreakers = pgTable(
  'circuit_breakers',
  {
    target: text('target').primaryKey(),
    scope: text('scope').$type<BreakerScope>().notNull(),
    agent: text('agent'),
    step: text('step'),
    downstream: text('downstream'),
    state: text('state').$type<BreakerState>().notNull(),
    /** When it last opened. */
    openedAt: timestamp('opened_at', { withTimezone: true }),
    /** Open: the first probe may run then. Half-open: a new round of probes may start then (the last one went silent). */
    probeAt: timestamp('probe_at', { withTimezone: true }),
    /** Probes let through in this half-open round. */
    probesGranted: integer('probes_granted').notNull().default(0),
    /** The share of failing attempts and the attempts in the window when it last opened. */
    failureShare: doublePrecision('failure_share'),
    volume: integer('volume'),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    check('circuit_breakers_scope_known', sql`${table.scope} in ('step', 'downstream')`),
    check('circuit_breakers_state_known', sql`${table.state} in ('closed', 'open', 'half_open')`),
    check(
      'circuit_breakers_target_names',
      sql`${table.agent} is not null and case ${table.scope}
        when 'step' then ${table.step} is not null and ${table.downstream} is null
          and ${table.target} = 'step:' || ${table.agent} || '/' || ${table.step}
        else ${table.step} is null and ${table.downstream} is not null
          and ${table.target} = 'downstream:' || ${table.agent} || '/' || ${table.downstream} end`,
    ),
    check('circuit_breakers_probe_when_not_closed', sql`${table.state} = 'closed' or ${table.probeAt} is not null`),
  ],
);

export type CircuitBreaker = typeof circuitBreakers.$inferSelect;

/** Attempts finished and those that failed as the downstream failing, per target and 5-second slice. */
export const breakerSlices = pgTable(
  'breaker_slices',
  {
    target: text('target').notNull(),
    sliceStart: timestamp('slice_start', { withTimezone: true }).notNull(),
    /** Which of a slice's rows a count went to: the writing connection's (as retry_pool_usage's); readers sum them. */
    stripe: smallint('stripe').notNull().default(0),
    attempts: integer('attempts').notNull(),
    failures: integer('failures').notNull(),
  },
  (table) => [primaryKey({ name: 'breaker_slices_pkey', columns: [table.target, table.sliceStart, table.stripe] })],
);

/** Every change of a breaker's state, for its history on the step page. */
export const breakerEvents = pgTable(
  'breaker_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    target: text('target').notNull(),
    /** opened, probing (half-open), closed, reopened (a probe failed). */
    event: text('event').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    failureShare: doublePrecision('failure_share'),
    volume: integer('volume'),
  },
  (table) => [
    check('breaker_events_event_known', sql`${table.event} in ('opened', 'probing', 'closed', 'reopened')`),
    index('breaker_events_by_target').on(table.target, table.at),
  ],
);

/**
 * The breakers' settings, one row (admins edit it; absent, the defaults in
 * packages/engine/src/core/breakers/breaker-settings.ts hold).
 */
export const breakerSettings = pgTable(
  'breaker_settings',
  {
    id: integer('id').primaryKey().default(1),
    windowSeconds: integer('window_seconds').notNull(),
    failureShare: doublePrecision('failure_share').notNull(),
    minimumVolume: integer('minimum_volume').notNull(),
    coolDownSeconds: integer('cool_down_seconds').notNull(),
    probes: integer('probes').notNull(),
    updatedBy: text('updated_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('breaker_settings_one_row', sql`${table.id} = 1`),
    check('breaker_settings_window_range', sql`${table.windowSeconds} between 10 and 3600`),
    check('breaker_settings_share_range', sql`${table.failureShare} > 0 and ${table.failureShare} <= 1`),
    check('breaker_settings_volume_range', sql`${table.minimumVolume} between 1 and 1000000`),
    check('breaker_settings_cool_down_range', sql`${table.coolDownSeconds} between 1 and 3600`),
    check('breaker_settings_probes_range', sql`${table.probes} between 1 and 100`),
  ],
);
