import 'server-only';
import type { NextRequest } from 'next/server';
import {
  type Action,
  type Actor,
  ApiTokenCache,
  type AuthenticatedToken,
  type BucketDecision,
  decide,
  RequestGrants,
  rateLimitOf,
  takeRequestTokens,
} from '@holdfast/engine/core';
import { findUnstorableText } from '@holdfast/protocol/validation';
import { getEnvironment } from '@holdfast/engine/env';
import { withDatabaseDeadline } from './database-outage';
import { getDb } from './db';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';
import { errorResponse, problemResponse } from './problem';
import { readBodyBytes } from './request-body';

/** The default body limit; an endpoint may set its own (the attempts batch does). */
export const MAX_BODY_BYTES = 64 * 1024;

// One of each per server process (globalThis: Next may load this module more than once), so that every agent
// route shares the tokens it has checked and the requests it has taken from each token's bucket.
const holder = globalThis as typeof globalThis & { holdfastTokenCache?: ApiTokenCache; holdfastGrants?: RequestGrants };
const tokenCache = (holder.holdfastTokenCache ??= new ApiTokenCache());
const requestGrants = (holder.holdfastGrants ??= new RequestGrants());

/**
 * The agent behind a request's Bearer token, allowed to do `action`; or the
 * response to send instead: 401 with no detail for a missing, unknown or
 * revoked token (nothing to learn by probing), 429 RATE_LIMITED when the
 * token's bucket is empty (every request of a known token counts, a refused
 * one too), 403 naming the missing scope. Nothing else about the request has
 * been read yet, so a refusal here costs two statements at most.
 */
export async function authenticateAgent(
  request: NextRequest,
  action: Action,
): Promise<{ actor: Extract<Actor, { type: 'agent' }>; token: AuthenticatedToken } | { response: Response }> {
  const admitted = await admitAgentToken(request);
  if ('response' in admitted) return admitted;
  const decision = decide(admitted.actor, action);
  if (!decision.allowed)
    return { response: problemResponse(403, 'FORBIDDEN', `This token may not ${action}: ${decision.reason}`) };
  return admitted;
}

/** The first two gates of authenticateAgent, for a route any valid token may read (the OpenAPI document). */
export async function admitAgentToken(
  request: NextRequest,
): Promise<{ actor: Extract<Actor, { type: 'agent' }>; token: AuthenticatedToken } | { response: Response }> {
  let token: AuthenticatedToken | undefined;
  let bucket: BucketDecision | undefined;
  try {
    const db = getDb();
    // The deadline only where the database is asked: a cached token and a leased grant set no timer.
    const guard = <T>(work: Promise<T>) => withDatabaseDeadline(work);
    token = await tokenCache.authenticate(db, request.headers.get('authorization'), guard);
    if (token) bucket = await requestGrants.take(db, token.tokenId, agentRateLimitOf(token), guard);
  } catch (error) {
    // The token lookup is the first query of every agent request: an outage shows here first (503).
    return { response: errorResponse(error) };
  }
  if (!token) {
    const response = problemResponse(401, 'UNAUTHENTICATED', 'A valid API token is required');
    response.headers.set('www-authenticate', 'Bearer');
    return { response };
  }
  if (bucket && !bucket.granted) return { response: rateLimited(token, bucket.retryAfterSeconds) };
  return { actor: token.actor, token };
}

function rateLimited(token: AuthenticatedToken, retryAfterSeconds: number): Response {
  const limit = agentRateLimitOf(token);
  return problemResponse(
    429,
    'RATE_LIMITED',
    `This token may make ${limit.perSecond} request(s) a second, ${limit.burst} at once; try again in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );
}

/**
 * Takes `requests` more from the token's bucket, for a request that costs more than one (an export batch is
 * charged by its spans: traces-endpoint.ts), all at once or none; the 429 to answer when the bucket holds fewer.
 */
export async function chargeAgentToken(token: AuthenticatedToken, requests: number): Promise<Response | undefined> {
  if (requests <= 0) return undefined;
  // All of them or none, in one statement: concurrent batches of one token that each took part of what they
  // need would empty the bucket with none of them let through.
  const reservation = await withDatabaseDeadline(
    takeRequestTokens(getDb(), token.tokenId, agentRateLimitOf(token), requests, undefined, true),
  );
  return reservation.taken > 0 ? undefined : rateLimited(token, reservation.retryAfterSeconds);
}

/** The token's own rate limit, else the deployment's (HOLDFAST_AGENT_RATE_PER_SECOND, HOLDFAST_AGENT_RATE_BURST). */
function agentRateLimitOf(token: AuthenticatedToken) {
  const env = getEnvironment();
  return rateLimitOf(token, { perSecond: env.HOLDFAST_AGENT_RATE_PER_SECOND, burst: env.HOLDFAST_AGENT_RATE_BURST });
}

/**
 * The request's JSON body, refusing more than `maxBytes` (413, 64 KiB unless
 * the endpoint says otherwise), malformed JSON (400), nesting deeper than
 * MAX_JSON_DEPTH (400: deep structures overflow the stack of every recursive
 * step after parsing), NUL characters and lone UTF-16 surrogates (400 naming
 * the field: PostgreSQL cannot store them). The body is read as a stream and abandoned at the limit, whatever
 * Content-Length says or whether it says anything.
 */
export async function readJsonBody(
  request: NextRequest,
  maxBytes = MAX_BODY_BYTES,
): Promise<{ body: unknown } | { response: Response }> {
  const bytes = await readBodyBytes(request, maxBytes);
  if (!bytes) {
    return { response: problemResponse(413, 'PAYLOAD_TOO_LARGE', `Bodies are limited to ${maxBytes / 1024} KiB`) };
  }
  const text = bytes.toString('utf8');
  // A raw NUL, or the JSON escape for one.
  if (text.includes('\u0000') || /\\u0000/i.test(text)) {
    return { response: problemResponse(400, 'INVALID_INPUT', 'The body may not contain NUL characters (\\u0000)') };
  }
  if (exceedsJsonDepth(text, MAX_JSON_DEPTH)) {
    return {
      response: problemResponse(
        400,
        'INVALID_INPUT',
        `The body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; the limit is ${MAX_JSON_DEPTH}`,
      ),
    };
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    return { response: problemResponse(400, 'INVALID_INPUT', 'The body is not valid JSON') };
  }
  // A lone surrogate ("\ud800") parses, but is no text: refused here for every endpoint, naming where it is.
  const fieldErrors = findUnstorableText(body);
  if (Object.keys(fieldErrors).length > 0) {
    return {
      response: problemResponse(
        400,
        'INVALID_INPUT',
        `The body holds text that cannot be stored at ${Object.keys(fieldErrors).slice(0, 5).join(', ')}`,
        { fieldErrors },
      ),
    };
  }
  return { body };
}
