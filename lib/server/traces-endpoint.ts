import 'server-only';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { NextRequest } from 'next/server';
import type { CoreContext } from '@holdfast/engine/core';
import { getEnvironment } from '@holdfast/engine/env';
import {
  encodeResponse,
  type ExportedSpan,
  type ReadingNotes,
  RequestPastLimitsError,
  readTracesRequest,
  UnreadableRequestError,
} from '@holdfast/engine/traces';
import { OTLP_LIMITS } from '@holdfast/engine/traces';
import { type MappedBatch, mapSpans, storeMappedSpans } from '@holdfast/engine/traces';
import { spanMappingRules } from '@holdfast/engine/traces';
import { agentRoute } from './agent-route';
import { BatchCharge } from './batch-charge';
import { refuseUnknownHost } from './host-check';
import {
  admitBatchWork,
  admitTokenBatch,
  answerRefusal,
  BATCHES_PER_TOKEN,
  RETRY_AFTER_SECONDS,
  WAITING_BATCHES,
} from './traces-admission';
import { withDatabaseDeadline } from './database-outage';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';
import { problemResponse } from './problem';
import { readBodyBytes } from './request-body';

const gunzipAsync = promisify(gunzip);

/** An export batch as sent (compressed or not), and once inflated: the SDK's batches of 512 spans are far smaller. */
export const MAX_TRACES_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_INFLATED_TRACES_BODY_BYTES = 16 * 1024 * 1024;
/**
 * A JSON body, once inflated: JSON.parse reads it in one call that no other request can interrupt (about 20 ms a
 * MiB on this project's machines), while protobuf is read span by span. Browser exporters' batches fit.
 */
export const MAX_INFLATED_JSON_TRACES_BODY_BYTES = 1024 * 1024;

/**
 * POST /v1/traces: an OTLP/HTTP traces receiver, as the OpenTelemetry protocol
 * describes it. Bearer token with the traces (or ingest) scope; protobuf or
 * JSON, gzip or not. 200 with the response message of the request's encoding,
 * naming spans not taken in `partialSuccess`; 400 for a body that cannot be
 * read (exporters do not retry it), 413 past the size limit or the spans per
 * request (otlp-limits.ts: spans past a per-span limit are refused in
 * `partialSuccess`), 415 for another content type; 429 and 503 carry
 * Retry-After, and exporters retry on those. The token's rate limit is charged
 * by the batch's bytes and spans (batch-charge.ts).
 *
 * The console's gate (proxy.ts) does not run for this path: export batches are
 * the busiest traffic an instance takes, and the gate cost more than the
 * receiver's own decoding. Its one check that applies is made here (host-check.ts).
 */
export async function receiveTraces(request: NextRequest): Promise<Response> {
  const wrongHost = refuseUnknownHost(request);
  if (wrongHost) return closingConnection(wrongHost);
  return receiveAgentBatch(request);
}

/** The batch in the agent routes' shell (agent-route.ts); a refusal before the body is read closes the connection. */
const receiveAgentBatch = agentRoute(
  'traces.write',
  async (request, agent) => {
    const contentType = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const format =
      contentType === 'application/x-protobuf' ? 'protobuf' : contentType === 'application/json' ? 'json' : undefined;
    if (!format)
      return closingConnection(
        problemResponse(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send application/x-protobuf or application/json (OTLP/HTTP)'),
      );

    // A token's batches in flight are bounded before a body is read; the instance's working ones once read, one
    // of each token at most, the others waiting their turn (traces-admission.ts).
    const tokenId = agent.token.tokenId;
    const tokenSlot = admitTokenBatch(tokenId);
    if (!tokenSlot) return closingConnection(await answerRefusal(tokenId, batchesBusy('token')));
    try {
      // The batch pays for its size before it is read, and again once inflated (batch-charge.ts).
      const charge = new BatchCharge(agent.token);
      const unread = await charge.forBytes(Number(request.headers.get('content-length') ?? '0') || 0);
      if (unread) return closingConnection(await answerRefusal(tokenId, unread));
      const body = await readBody(request, format);
      if ('response' in body) return body.response;
      const inflated = await charge.forBytes(body.bytes.byteLength);
      if (inflated) return inflated;
      const turn = admitBatchWork(tokenId);
      if (!turn) return batchesBusy('instance');
      const workSlot = await turn;
      try {
        return await receiveBatch(format, body.bytes, agent.ctx, charge);
      } finally {
        workSlot.release();
      }
    } finally {
      tokenSlot.release();
    }
  },
  { refused: closingConnection },
);

async function receiveBatch(
  format: 'protobuf' | 'json',
  bytes: Buffer,
  ctx: CoreContext,
  charge: BatchCharge,
): Promise<Response> {
  const countedOperations = new Set(getEnvironment().HOLDFAST_TRACES_OPERATIONS);
  const mapped = await decodeAndMap(ctx, format, bytes, charge, countedOperations);
  if (mapped instanceof Response) return mapped;
  const result = await withDatabaseDeadline(storeMappedSpans(ctx, mapped));
  const reasons = [...new Set(result.rejected.map((rejection) => rejection.reason))];
  // Texts cut at the value limit are said too (a warning when no span was refused, as OTLP allows).
  if (mapped.cutTexts > 0)
    reasons.push(
      `${mapped.cutTexts} text(s) longer than ${OTLP_LIMITS.valueBytes} bytes cut to their first ${OTLP_LIMITS.valueBytes}`,
    );
  const answer = encodeResponse(format, {
    count: result.rejected.length,
    message: reasons.slice(0, 5).join('; ').slice(0, 2_000),
  });
  return new Response(typeof answer === 'string' ? answer : Buffer.from(answer), {
    status: 200,
    headers: { 'content-type': format === 'protobuf' ? 'application/x-protobuf' : 'application/json' },
  });
}

/**
 * A refusal sent before the body is read closes the connection: the body is then never received, where
 * keeping the connection open would have the server read (and drop) all of it first.
 */
function closingConnection(response: Response): Response {
  response.headers.set('connection', 'close');
  return response;
}

/** 429 for a batch that found no place (traces-admission.ts): the exporter sends it again after Retry-After. */
function batchesBusy(busy: 'token' | 'instance'): Response {
  const response = problemResponse(
    429,
    'RATE_LIMITED',
    busy === 'token'
      ? `This token has ${BATCHES_PER_TOKEN} export batches in flight already: send the next when one is answered`
      : `This instance has ${WAITING_BATCHES} export batches waiting already: send again in ${RETRY_AFTER_SECONDS} s`,
  );
  response.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
  return response;
}

/**
 * The body's spans, mapped to what will be written (or the 400, 413 or 429 to answer), with the texts cut. The
 * decoded spans live only in this call: the batch's database wait that follows keeps nothing of them alive (see
 * mapSpans). Reading and mapping give the event loop its turn every few milliseconds (otlp-limits.ts).
 */
async function decodeAndMap(
  ctx: CoreContext,
  format: 'protobuf' | 'json',
  bytes: Buffer,
  charge: BatchCharge,
  countedOperations: ReadonlySet<string>,
): Promise<(MappedBatch & { cutTexts: number }) | Response> {
  let spans: ExportedSpan[];
  let notes: ReadingNotes;
  try {
    if (format === 'json' && exceedsJsonDepth(bytes.toString('utf8'), MAX_JSON_DEPTH))
      return problemResponse(400, 'INVALID_INPUT', `The body nests more than ${MAX_JSON_DEPTH} levels deep`);
    ({ spans, notes } = await readTracesRequest(format, bytes));
  } catch (error) {
    if (error instanceof UnreadableRequestError) return problemResponse(400, 'INVALID_INPUT', error.message);
    if (error instanceof RequestPastLimitsError) return problemResponse(413, 'PAYLOAD_TOO_LARGE', error.message);
    throw error;
  }
  // Counted, the spans are paid for before they are mapped and stored (what their bytes paid counts).
  const refusal = await charge.forSpans(spans.length + notes.refused.length);
  if (refusal) return refusal;
  const rules = await withDatabaseDeadline(spanMappingRules(ctx.db, countedOperations));
  const mapped = await mapSpans(ctx, spans, rules);
  mapped.rejected.unshift(...notes.refused);
  return { ...mapped, cutTexts: notes.cutTexts };
}

async function readBody(
  request: NextRequest,
  format: 'protobuf' | 'json',
): Promise<{ bytes: Buffer } | { response: Response }> {
  const tooLarge = () => ({
    response: problemResponse(
      413,
      'PAYLOAD_TOO_LARGE',
      `Export batches are limited to ${MAX_TRACES_BODY_BYTES / 1024 / 1024} MiB (${MAX_INFLATED_TRACES_BODY_BYTES / 1024 / 1024} MiB uncompressed)`,
    ),
  });
  const jsonTooLarge = () => ({
    response: problemResponse(
      413,
      'PAYLOAD_TOO_LARGE',
      `JSON export batches are limited to ${MAX_INFLATED_JSON_TRACES_BODY_BYTES / 1024 / 1024} MiB uncompressed (protobuf: ${MAX_INFLATED_TRACES_BODY_BYTES / 1024 / 1024} MiB)`,
    ),
  });
  const inflatedLimit = format === 'json' ? MAX_INFLATED_JSON_TRACES_BODY_BYTES : MAX_INFLATED_TRACES_BODY_BYTES;
  const raw = await readBodyBytes(request, MAX_TRACES_BODY_BYTES);
  if (!raw) return tooLarge();
  const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '')
    return raw.byteLength > inflatedLimit ? jsonTooLarge() : { bytes: raw };
  if (encoding !== 'gzip')
    return { response: problemResponse(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding may be gzip or none') };
  try {
    // Inflated on libuv's thread pool, not on the event loop.
    return { bytes: await gunzipAsync(raw, { maxOutputLength: inflatedLimit }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' && format === 'json') return jsonTooLarge();
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return tooLarge();
    return { response: problemResponse(400, 'INVALID_INPUT', 'The body is not valid gzip') };
  }
}
