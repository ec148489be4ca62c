import 'server-only';
import type { NextRequest } from 'next/server';
import { type HostRules, hostRulesFrom, isAllowedHost, requestedHost } from '../auth/request-host';
import { type Environment, getEnvironment } from '@holdfast/engine/env';
import { problemResponse } from './problem';

let rules: { from: Environment; rules: HostRules } | undefined;

/**
 * The console's gate (proxy.ts) does not run for the busiest Bearer-token routes (the OTLP receiver, the step
 * endpoints): its work per request (a CSP nonce, copied headers, a second pass through Next's router) cost
 * them more than their own. Of that gate only its first check applies to a Bearer-token route, and it is made
 * here: the Host must be one Holdfast serves. Undefined when it is; else the 400 to answer.
 */
export function refuseUnknownHost(request: Request): Response | undefined {
  const env = getEnvironment();
  if (rules?.from !== env) rules = { from: env, rules: hostRulesFrom(env) };
  if (isAllowedHost(requestedHost(request.headers, rules.rules), rules.rules)) return undefined;
  return problemResponse(400, 'INVALID_INPUT', 'This Holdfast does not answer to that host name: use its own address');
}

/** A route handler that refuses an unknown Host before anything else: for the routes proxy.ts skips. */
export function withHostCheck(handle: (request: NextRequest) => Promise<Response>) {
  return async (request: NextRequest): Promise<Response> => refuseUnknownHost(request) ?? handle(request);
}
