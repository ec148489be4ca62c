import type { Executor } from '../../db/client';
import type { Role, TokenScope } from '../../db/schema';

/**
 * Who acts: a person (from the session, with their role and teams), an agent
 * (from its API token, with the token's scopes), or the system (sweeps).
 */
export type Actor =
  | { type: 'person'; id: string; role: Role; teams: string[] }
  | {
      type: 'agent';
      id: string;
      scopes: TokenScope[];
      /** The token acts only for these agents (absent: any agent). */
      allowedAgents?: string[];
      /** The token acts only on these queues (absent: any queue). */
      allowedQueues?: string[];
    }
  | { type: 'system'; id: string };

/** The brakes on redriving one task: how often, how soon again, and up to what age. */
export interface RedriveBrakes {
  /** Redrives a task may have in all; the next is refused. */
  maxRedrives: number;
  /** The least time between two redrives of one task. */
  cooldownMs: number;
  /** A task first seen longer ago than this is not redriven. */
  maxTaskAgeMs: number;
}

/** Operating rules a deployment may tune (from its environment); every field has a default. */
export interface CorePolicy {
  redriveBrakes: RedriveBrakes;
  /**
   * How long raw attempts are kept (the retention sweep deletes older ones): an
   * attempt that started before that is refused, as it would be swept at once.
   * Optional so a deployment's policy (packages/engine/src/env.ts) need not name it: 30 days by default.
   */
  attemptRetentionMs?: number;
  /**
   * Who gets the work an agent names an unknown owner for (HOLDFAST_DEFAULT_OWNER;
   * see packages/engine/src/core/holds/known-owner.ts): team:platform by default.
   */
  defaultOwner?: string;
}

export const DEFAULT_CORE_POLICY: CorePolicy = {
  redriveBrakes: { maxRedrives: 3, cooldownMs: 10 * 60_000, maxTaskAgeMs: 7 * 24 * 3_600_000 },
  attemptRetentionMs: 30 * 24 * 3_600_000,
  defaultOwner: 'team:platform',
};

/**
 * What every library operation runs with: the database (or a transaction the
 * caller already opened, which the operation then joins) and, for anything that
 * is audit-logged, the actor. The actor never comes from an operation's input.
 * `clock` is the time the library decides by where time is an input (deadlines,
 * retry pools' windows); tests pass their own instead of sleeping. The server
 * and the sweeper pass the database's clock (startDatabaseClock), so these
 * decisions agree with the keys and locks that expire by the database's now();
 * a caller that passes none gets this machine's clock.
 */
export interface CoreContext {
  db: Executor;
  actor?: Actor;
  clock?: () => Date;
  policy?: Partial<CorePolicy>;
}

export const SWEEPER: Actor = { type: 'system', id: 'sweeper' };

export function requireActor(ctx: CoreContext): Actor {
  if (!ctx.actor) throw new Error('This operation is audit-logged and needs ctx.actor');
  return ctx.actor;
}

/** How an actor is written in text columns such as opened_by. */
export function actorLabel(actor: Actor): string {
  return `${actor.type}:${actor.id}`;
}

/** The current time by the context's clock. */
export function nowOf(ctx: CoreContext): Date {
  return ctx.clock ? ctx.clock() : new Date();
}

export function policyOf(ctx: CoreContext): CorePolicy {
  return { ...DEFAULT_CORE_POLICY, ...ctx.policy };
}

/** How an attempt made under this context reaches Holdfast: an agent token's is over HTTP, anyone else's in-process. */
export function attemptSourceOf(ctx: Pick<CoreContext, 'actor'>): 'http' | 'library' {
  return ctx.actor?.type === 'agent' ? 'http' : 'library';
}
