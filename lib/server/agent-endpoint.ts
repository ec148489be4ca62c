import 'server-only';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { NextRequest } from 'next/server';
import { NextResponse } from 'next/server';
import type { z } from 'zod';
import type { Endpoint } from '../api/endpoints';
import { hashContent, type Actor, type CoreContext } from '../core';
import { parseInput } from '../core/validation';
import { apiRequests } from '../db/schema';
import { authenticateAgent, readJsonBody } from './api-auth';
import { getDb } from './db';
import { errorResponse, problemResponse } from './problem';

/** What a handler answers: a status and a JSON body (a problem body for 4xx), and any headers. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/**
 * The one way an agent endpoint runs: the token and its scope, the body
 * (size-limited JSON), the `Idempotency-Key` header (a retried request gets
 * the first response), the endpoint's zod schema (400 naming every bad field,
 * unknown fields refused), then the handler. No bad input ever reaches a 500.
 */
export function agentEndpoint<Input extends z.ZodType>(spec: Endpoint<Input>, handle: (ctx: CoreContext & { actor: Actor }, input: z.output<Input>) => Promise<Reply>) {
  const endpointName = `${spec.method} ${spec.path}`;
  return async (request: NextRequest): Promise<Response> => {
    const agent = await authenticateAgent(request, spec.action);
    if ('response' in agent) return agent.response;
    const read = await readJsonBody(request);
    if ('response' in read) return read.response;

    const db = getDb();
    const idempotencyKey = request.headers.get('idempotency-key');
    if (idempotencyKey !== null) {
      if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
        return problemResponse(400, 'INVALID_INPUT', 'The Idempotency-Key header must be 1 to 200 visible ASCII characters', { fieldErrors: { 'Idempotency-Key': ['must be 1 to 200 visible ASCII characters'] } });
      }
      const earlier = await rememberRequest(db, agent.actor.id, idempotencyKey, endpointName, hashContent(read.body));
      if (earlier) return earlier;
    }

    let response: NextResponse;
    try {
      const input = parseInput(spec.input, read.body);
      const reply = await handle({ db, actor: agent.actor }, input);
      response = reply.status >= 400
        ? problemResponse(reply.status, String((reply.body as { code?: string }).code), String((reply.body as { detail?: string }).detail), reply.body as Record<string, unknown>)
        : NextResponse.json(reply.body, { status: reply.status, headers: { 'cache-control': 'no-store', ...reply.headers } });
    } catch (error) {
      response = errorResponse(error);
    }

    if (idempotencyKey !== null) await settleRequest(db, agent.actor.id, idempotencyKey, response);
    return response;
  };
}

/**
 * Keeps the answer for retries, or forgets the request: a failure on our side
 * (5xx) is not an answer, and neither is "try later" (a retry must really try
 * again, not be told the same thing for a day).
 */
async function settleRequest(db: ReturnType<typeof getDb>, actorId: string, key: string, response: NextResponse): Promise<void> {
  const where = and(eq(apiRequests.actorId, actorId), eq(apiRequests.idempotencyKey, key), isNull(apiRequests.status));
  try {
    const body = (await response.clone().json()) as { retryable?: boolean } | null;
    if (response.status >= 500 || body?.retryable === true) await db.delete(apiRequests).where(where);
    else await db.update(apiRequests).set({ status: response.status, responseBody: body }).where(where);
  } catch (error) {
    // The answer still goes out; the in-flight row's short lease lets a retry through later.
    console.error(`Idempotency-Key ${key}: the answer could not be kept: ${String(error)}`);
  }
}

/**
 * Records this request under its key, or answers it from the first one: the
 * stored response (same endpoint and body), 409 while the first is still
 * being answered, 422 for the same key with another request.
 */
async function rememberRequest(db: ReturnType<typeof getDb>, actorId: string, key: string, endpoint: string, requestHash: string): Promise<Response | undefined> {
  const [claimed] = await db
    .insert(apiRequests)
    .values({ actorId, idempotencyKey: key, endpoint, requestHash })
    // A key past its day is free again, even before the sweep deletes it; so is one whose
    // first request never got an answer kept within a minute (its process died).
    .onConflictDoUpdate({
      target: [apiRequests.actorId, apiRequests.idempotencyKey],
      set: { endpoint, requestHash, status: null, responseBody: null, createdAt: sql`now()`, expiresAt: sql`now() + interval '24 hours'` },
      setWhere: sql`${apiRequests.expiresAt} <= now() or (${apiRequests.status} is null and ${apiRequests.createdAt} < now() - interval '1 minute')`,
    })
    .returning({ key: apiRequests.idempotencyKey });
  if (claimed) return undefined;

  const [first] = await db
    .select()
    .from(apiRequests)
    .where(and(eq(apiRequests.actorId, actorId), eq(apiRequests.idempotencyKey, key), sql`${apiRequests.expiresAt} > now()`));
  if (!first) return problemResponse(409, 'REQUEST_IN_PROGRESS', 'This Idempotency-Key is being reused right now; try again', { retryAfterSeconds: 1 });
  if (first.endpoint !== endpoint || first.requestHash !== requestHash) {
    return problemResponse(422, 'IDEMPOTENCY_KEY_REUSED', `Idempotency-Key "${key}" was first used for a different request; use a new key for a new request`);
  }
  if (first.status === null) {
    return problemResponse(409, 'REQUEST_IN_PROGRESS', 'The first request with this Idempotency-Key is still being answered', { retryAfterSeconds: 1 });
  }
  const body = first.responseBody as Record<string, unknown> | null;
  const headers: Record<string, string> = { 'idempotent-replayed': 'true', 'cache-control': 'no-store' };
  if (first.status >= 400) headers['content-type'] = 'application/problem+json';
  if (typeof body?.retryAfterSeconds === 'number') headers['retry-after'] = String(body.retryAfterSeconds);
  return NextResponse.json(body, { status: first.status, headers });
}
