import 'server-only';
import type { NextRequest } from 'next/server';
import { authenticateApiToken, decide, type Action, type Actor } from '../core';
import { withDatabaseDeadline } from './database-outage';
import { getDb } from './db';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';
import { errorResponse, problemResponse } from './problem';

/** The default body limit; an endpoint may set its own (the attempts batch does). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The agent behind a request's Bearer token, allowed to do `action`; or the
 * response to send instead: 401 with no detail for a missing, unknown or
 * revoked token (nothing to learn by probing), 403 naming the missing scope.
 */
export async function authenticateAgent(
  request: NextRequest,
  action: Action,
): Promise<{ actor: Actor } | { response: Response }> {
  let actor: Awaited<ReturnType<typeof authenticateApiToken>>;
  try {
    actor = await withDatabaseDeadline(authenticateApiToken(getDb(), request.headers.get('authorization')));
  } catch (error) {
    // The token lookup is the first query of every agent request: an outage shows here first (503).
    return { response: errorResponse(error) };
  }
  if (!actor) {
    const response = problemResponse(401, 'UNAUTHENTICATED', 'A valid API token is required');
    response.headers.set('www-authenticate', 'Bearer');
    return { response };
  }
  const decision = decide(actor, action);
  if (!decision.allowed)
    return { response: problemResponse(403, 'FORBIDDEN', `This token may not ${action}: ${decision.reason}`) };
  return { actor };
}

/**
 * The request's JSON body, refusing more than `maxBytes` (413, 64 KiB unless
 * the endpoint says otherwise), malformed JSON (400), nesting deeper than
 * MAX_JSON_DEPTH (400: deep structures overflow the stack of every recursive
 * step after parsing) and NUL characters (400: PostgreSQL cannot store them in
 * text). The body is read as a stream and abandoned at the limit, whatever
 * Content-Length says or whether it says anything.
 */
export async function readJsonBody(
  request: NextRequest,
  maxBytes = MAX_BODY_BYTES,
): Promise<{ body: unknown } | { response: Response }> {
  const tooLarge = () => ({
    response: problemResponse(413, 'PAYLOAD_TOO_LARGE', `Bodies are limited to ${maxBytes / 1024} KiB`),
  });
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) return tooLarge();

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        return tooLarge();
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
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
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    return { response: problemResponse(400, 'INVALID_INPUT', 'The body is not valid JSON') };
  }
}
