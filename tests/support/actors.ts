import type { Actor } from '../../packages/engine/src/core';
import type { Role, TokenScope } from '../../packages/engine/src/db/schema';

/** A signed-in person as the console's session carries them: a role, and the teams they belong to. */
export function aPerson(role: Role, id: string, teams: string[] = []): Actor {
  return { type: 'person', id, role, teams };
}

/** An agent's API token as its requests carry it: ingest, unless the test is about another scope. */
export function anAgent(id: string, scopes: TokenScope[] = ['ingest']): Actor {
  return { type: 'agent', id, scopes };
}

/** The admin most tests act as: settings, tokens and people are theirs to change. */
export const admin = aPerson('admin', 'ada@example.com');

/** The responder on call: holds, dead letters, locks and pauses are theirs to act on, settings are not. */
export const oncall = aPerson('responder', 'oncall@example.com');
