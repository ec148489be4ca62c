import 'server-only';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { NextResponse } from 'next/server';
import type { z } from 'zod';
import type { Endpoint } from '@holdfast/protocol/api/endpoints';
import { hashContent, type Actor, type CoreContext } from '@holdfast/engine/core';
import type { Action } from '@holdfast/engine/core';
import type { ErrorCode } from '@holdfast/protocol/error-codes';
import { parseForHandOff, parseInput } from '@holdfast/protocol/validation';
import { apiRequests } from '@holdfast/engine/db/schema';
import { agentRoute } from './agent-route';
import { readJsonBody } from './api-auth';
import { withDatabaseDeadline } from './database-outage';
import { type getDb, getRequestLocks } from './db';
import { describeForLog } from './log-error';
import { errorResponse, problemResponse, type StatusOf } from './problem';

/** What a handler answers: a success status and a JSON body, and any headers; or a problem (below). */
export type Reply = { status: 200 | 201; body: unknown; headers?: Record<string, string> } | ProblemReply;

/** A problem a handler answers with instead of throwing: a code, a status codes are answered with, and what the body adds. */
export interface ProblemReply {
  status: StatusOf<ErrorCode>;
  body: { code: ErrorCode; detail: string; retryAfterSeconds?: number; [field: string]: unknown };
}

const isProblem = (reply: Reply): reply is ProblemReply => reply.status >= 400;

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/**
 * The one way an agent endpoint runs, in the agent routes' shell (agent-route.ts: the token, its rate limit and
 * its scope, every error mapped): the body (size- and depth-limited JSON), the `Idempotency-Key` header, the
 * endpoint's zod schema (400 naming every bad field, unknown fields refused),
 * then the handler, whose answer a retry with the same Idempotency-Key gets
 * back. Every refusal up to the schema comes before the key is looked at, so
 * a refused request leaves its key unused (Stripe's rule: only a request that
 * started executing has a result to keep). No bad input ever reaches a 500,
 * and an unreachable database answers 503.
 */
export function agentEndpoint<Input extends z.ZodType>(spec: Endpoint<Input>, handle: Handler<Input>) {
  const endpointName = `${spec.method} ${spec.path}`;
  return agentRoute(spec.action, async (request, agent) => {
    const read = await readJsonBody(request, spec.maxBodyBytes);
    if ('response' in read) return read.response;
    const idempotencyKey = request.headers.get('idempotency-key');
    if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      return problemResponse(
        400,
        'INVALID_INPUT',
        'The Idempotency-Key header must be 1 to 200 visible ASCII characters',
        { fieldErrors: { 'Idempotency-Key': ['must be 1 to 200 visible ASCII characters'] } },
      );
    }
    // The library's own parse of this value (every service parses its input) then trusts it: parsed once.
    const input = parseForHandOff(spec.input, read.body);
    // The deployment's rules (redrive brakes, the raw retention that bounds attempt dates) apply to agents too.
    const run = () => runHandler(handle, agent.ctx, input);
    if (idempotencyKey === null) return await withDatabaseDeadline(run(), spec.databaseDeadlineMs);
    return await answerOnce(
      {
        db: agent.ctx.db,
        actorId: agent.actor.id,
        key: idempotencyKey,
        endpoint: endpointName,
        requestHash: hashContent(read.body),
        databaseDeadlineMs: spec.databaseDeadlineMs,
      },
      run,
    );
  });
}

/**
 * A read-only GET for agents: the token and its scope, the query string by its
 * schema (400 naming each bad or unknown parameter), the database's deadline
 * (503 in an outage), every error mapped to its problem: the same guarantees as
 * a POST endpoint, less the body and the Idempotency-Key a read has no use for.
 */
export function agentQueryEndpoint<Query extends z.ZodType>(
  spec: { action: Action; query: Query },
  handle: (ctx: CoreContext & { actor: Actor }, query: z.output<Query>) => Promise<unknown>,
) {
  return agentRoute(spec.action, async (request, agent) => {
    const query = parseInput(spec.query, Object.fromEntries(request.nextUrl.searchParams));
    const body = await withDatabaseDeadline(handle(agent.ctx, query));
    return NextResponse.json(body, { headers: { 'cache-control': 'no-store' } });
  });
}

type Handler<Input extends z.ZodType> = (ctx: CoreContext & { actor: Actor }, input: z.output<Input>) => Promise<Reply>;
type Db = ReturnType<typeof getDb>;
interface KeyedRequest {
  db: Db;
  actorId: string;
  key: string;
  endpoint: string;
  requestHash: string;
  /** The endpoint's own database deadline, if it has one. */
  databaseDeadlineMs?: number;
}

async function runHandler<Input extends z.ZodType>(
  handle: Handler<Input>,
  ctx: CoreContext & { actor: Actor },
  input: z.output<Input>,
): Promise<NextResponse> {
  try {
    const reply = await handle(ctx, input);
    return isProblem(reply)
      ? problemResponse(reply.status, reply.body.code, reply.body.detail, reply.body)
      : NextResponse.json(reply.body, {
          status: reply.status,
          headers: { 'cache-control': 'no-store', ...reply.headers },
        });
  } catch (error) {
    return errorResponse(error);
  }
}

/**
 * Runs a keyed request at most once at a time, and answers its retries from
 * the first answer. The request holds the key's lock (request-locks.ts) from
 * before it marks the key in flight until after it settles it; a duplicate
 * that cannot take the lock is told 409 REQUEST_IN_PROGRESS. The lock dies
 * with the request's process or connection, so an in-flight mark left by a
 * request that died (or whose database did) is taken over by the next try.
 */
async function answerOnce(request: KeyedRequest, run: () => Promise<NextResponse>): Promise<Response> {
  const release = await withDatabaseDeadline(getRequestLocks().tryAcquire(request.actorId, request.key));
  if (!release) return withDatabaseDeadline(findFirst(request).then((first) => answerFromFirst(request, first)));
  try {
    return await withDatabaseDeadline(
      (async () => {
        const earlier = await rememberRequest(request);
        if (earlier) return earlier;
        const response = await run();
        await settleRequest(request, response);
        return response;
      })(),
      request.databaseDeadlineMs,
    );
  } finally {
    // Also when the deadline passed: a request that hangs must not keep its key from the retry.
    await release();
  }
}

/**
 * Statuses that refuse a request before it acts (validation, authentication, scope or token limits, size,
 * rate): the library's own checks can still answer them from inside a handler, and they are not results.
 */
const REFUSED_BEFORE_EXECUTION = new Set([400, 401, 403, 413, 429]);

/**
 * Keeps the answer for retries, or forgets the request: a failure on our side
 * (5xx) is not an answer, nor a refusal before acting (the corrected request
 * may use the same key), nor "try later" (a retry must really try again, not
 * be told the same thing for a day).
 */
async function settleRequest({ db, actorId, key }: KeyedRequest, response: NextResponse): Promise<void> {
  const where = and(eq(apiRequests.actorId, actorId), eq(apiRequests.idempotencyKey, key), isNull(apiRequests.status));
  try {
    const body = (await response.clone().json()) as { retryable?: boolean } | null;
    const notAnAnswer =
      response.status >= 500 || REFUSED_BEFORE_EXECUTION.has(response.status) || body?.retryable === true;
    if (notAnAnswer) await db.delete(apiRequests).where(where);
    else await db.update(apiRequests).set({ status: response.status, responseBody: body }).where(where);
  } catch (error) {
    // The answer still goes out; the in-flight mark is an orphan once our lock goes, and the next try takes it over.
    console.error(`Idempotency-Key ${key}: the answer could not be kept: ${describeForLog(error)}`);
  }
}

/**
 * Marks this request in flight under its key (we hold the key's lock), or
 * answers it from the first one: the stored response for the same endpoint
 * and body, 422 for the same key with another request.
 */
async function rememberRequest(request: KeyedRequest): Promise<Response | undefined> {
  const { db, actorId, key, endpoint, requestHash } = request;
  const [claimed] = await db
    .insert(apiRequests)
    .values({ actorId, idempotencyKey: key, endpoint, requestHash })
    // A key past its day is free again, even before the sweep deletes it. An in-flight mark
    // is an orphan here: we hold the key's lock, so the request that wrote it is gone.
    .onConflictDoUpdate({
      target: [apiRequests.actorId, apiRequests.idempotencyKey],
      set: {
        endpoint,
        requestHash,
        status: null,
        responseBody: null,
        createdAt: sql`now()`,
        expiresAt: sql`now() + interval '24 hours'`,
      },
      setWhere: sql`${apiRequests.expiresAt} <= now() or ${apiRequests.status} is null`,
    })
    .returning({ key: apiRequests.idempotencyKey });
  if (claimed) return undefined;
  return answerFromFirst(request, await findFirst(request));
}

async function findFirst({ db, actorId, key }: KeyedRequest) {
  const [first] = await db
    .select()
    .from(apiRequests)
    .where(
      and(eq(apiRequests.actorId, actorId), eq(apiRequests.idempotencyKey, key), sql`${apiRequests.expiresAt} > now()`),
    );
  return first;
}

function answerFromFirst(
  { key, endpoint, requestHash }: KeyedRequest,
  first: typeof apiRequests.$inferSelect | undefined,
): Response {
  if (!first)
    return problemResponse(409, 'REQUEST_IN_PROGRESS', 'This Idempotency-Key is being reused right now; try again', {
      retryAfterSeconds: 1,
    });
  if (first.endpoint !== endpoint || first.requestHash !== requestHash) {
    return problemResponse(
      422,
      'IDEMPOTENCY_KEY_REUSED',
      `Idempotency-Key "${key}" was first used for a different request; use a new key for a new request`,
    );
  }
  if (first.status === null) {
    return problemResponse(
      409,
      'REQUEST_IN_PROGRESS',
      'The first request with this Idempotency-Key is still being answered',
      { retryAfterSeconds: 1 },
    );
  }
  const body = first.responseBody as Record<string, unknown> | null;
  const headers: Record<string, string> = { 'idempotent-replayed': 'true', 'cache-control': 'no-store' };
  if (first.status >= 400) headers['content-type'] = 'application/problem+json';
  if (typeof body?.retryAfterSeconds === 'number') headers['retry-after'] = String(body.retryAfterSeconds);
  return NextResponse.json(body, { status: first.status, headers });
}
