import type { Executor } from '../db/client';
import type { Role, TokenScope } from '../db/schema';

/**
 * Who acts: a person (from the session, with their role and teams), an agent
 * (from its API token, with the token's scopes), or the system (sweeps).
 */
export type Actor =
  | { type: 'person'; id: string; role: Role; teams: string[] }
  | { type: 'agent'; id: string; scopes: TokenScope[] }
  | { type: 'system'; id: string };

/**
 * What every library operation runs with: the database (or a transaction the
 * caller already opened, which the operation then joins) and, for anything that
 * is audit-logged, the actor. The actor never comes from an operation's input.
 */
export interface CoreContext {
  db: Executor;
  actor?: Actor;
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
