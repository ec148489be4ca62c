import 'server-only';
import type { NextRequest } from 'next/server';
import type { Action, Actor, AuthenticatedToken, CoreContext } from '@holdfast/engine/core';
import { corePolicyFrom, getEnvironment } from '@holdfast/engine/env';
import { authenticateAgent } from './api-auth';
import { getClock, getDb } from './db';
import { errorResponse } from './problem';

/** The agent a route runs for: its token (a route may charge it more: batch-charge.ts) and the context it acts in. */
export interface AgentRequest {
  actor: Extract<Actor, { type: 'agent' }>;
  token: AuthenticatedToken;
  ctx: CoreContext & { actor: Actor };
}

/**
 * The shell every agent route runs in, whatever its body: the token (401 when missing, unknown or revoked, 429
 * when its bucket is empty), the action its scope must allow (403), the context a handler acts in (the
 * deployment's policy and clock), and every error mapped to its problem (503 in an outage, never a bare 500).
 * Each route reads its own body after this: JSON by its endpoint's schema (agent-endpoint.ts), an OTLP batch by
 * its encoding (traces-endpoint.ts), a query string. `refused` dresses a refusal made before any body is read (the
 * OTLP receiver closes the connection, so an unread body is never received).
 */
export function agentRoute(
  action: Action,
  run: (request: NextRequest, agent: AgentRequest) => Promise<Response>,
  options: { refused?: (response: Response) => Response } = {},
) {
  const refused = options.refused ?? ((response: Response) => response);
  return async (request: NextRequest): Promise<Response> => {
    const admitted = await authenticateAgent(request, action);
    if ('response' in admitted) return refused(admitted.response);
    try {
      return await run(request, { ...admitted, ctx: agentContext(admitted.actor) });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** The context an agent's request acts in: the database, the agent, the clock, the deployment's rules. */
function agentContext(actor: Actor): CoreContext & { actor: Actor } {
  return { db: getDb(), actor, clock: getClock(), policy: corePolicyFrom(getEnvironment()) };
}
