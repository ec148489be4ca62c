import 'server-only';
import { gunzipSync } from 'node:zlib';
import type { NextRequest } from 'next/server';
import { decide } from '../core/identity/authorization';
import type { CoreContext } from '../core/kernel/context';
import { corePolicyFrom, getEnvironment } from '../env';
import {
  decodeJsonRequest,
  decodeProtobufRequest,
  encodeResponse,
  type ExportedSpan,
  UnreadableRequestError,
} from '../traces/otlp-request';
import { type MappedSpans, mapSpans, storeMappedSpans } from '../traces/ingest-spans';
import { spanMappingRules } from '../traces/mapping-rules';
import { admitAgentToken } from './api-auth';
import { refuseUnknownHost } from './host-check';
import { withDatabaseDeadline } from './database-outage';
import { getClock, getDb } from './db';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';
import { errorResponse, problemResponse } from './problem';
import { readBodyBytes } from './request-body';

/** An export batch as sent (compressed or not), and once inflated: the SDK's batches of 512 spans are far smaller. */
export const MAX_TRACES_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_INFLATED_TRACES_BODY_BYTES = 16 * 1024 * 1024;

/**
 * POST /v1/traces: an OTLP/HTTP traces receiver, as the OpenTelemetry protocol
 * describes it. Bearer token with the traces (or ingest) scope; protobuf or
 * JSON, gzip or not. 200 with the response message of the request's encoding,
 * naming spans not taken in `partialSuccess`; 400 for a body that cannot be
 * read (exporters do not retry it), 413 past the size limit, 415 for another
 * content type; 429 and 503 carry Retry-After, and exporters retry on those.
 *
 * The console's gate (proxy.ts) does not run for this path: export batches are
 * the busiest traffic an instance takes, and the gate cost more than the
 * receiver's own decoding. Its one check that applies is made here (host-check.ts).
 */
export async function receiveTraces(request: NextRequest): Promise<Response> {
  const wrongHost = refuseUnknownHost(request);
  if (wrongHost) return wrongHost;
  const admitted = await admitAgentToken(request);
  if ('response' in admitted) return admitted.response;
  const allowed = decide(admitted.actor, 'traces.write');
  if (!allowed.allowed) return problemResponse(403, 'FORBIDDEN', `This token may not export traces: ${allowed.reason}`);

  const contentType = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const format =
    contentType === 'application/x-protobuf' ? 'protobuf' : contentType === 'application/json' ? 'json' : undefined;
  if (!format)
    return problemResponse(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Send application/x-protobuf or application/json (OTLP/HTTP)',
    );

  const body = await readBody(request);
  if ('response' in body) return body.response;
  const env = getEnvironment();
  const ctx = { db: getDb(), actor: admitted.actor, clock: getClock(), policy: corePolicyFrom(env) };
  try {
    const mapped = await decodeAndMap(ctx, format, body.bytes, new Set(env.HOLDFAST_TRACES_OPERATIONS));
    if (mapped instanceof Response) return mapped;
    const result = await withDatabaseDeadline(storeMappedSpans(ctx, mapped));
    const reasons = [...new Set(result.rejected.map((rejection) => rejection.reason))];
    const answer = encodeResponse(format, {
      count: result.rejected.length,
      message: reasons.slice(0, 5).join('; ').slice(0, 2_000),
    });
    return new Response(typeof answer === 'string' ? answer : Buffer.from(answer), {
      status: 200,
      headers: { 'content-type': format === 'protobuf' ? 'application/x-protobuf' : 'application/json' },
    });
  } catch (error) {
    return errorResponse(error);
  }
}

/**
 * The body's spans, mapped to what will be written (or the 400 to answer). The decoded spans live only in this
 * call: the batch's database wait that follows keeps nothing of them alive (see mapSpans).
 */
async function decodeAndMap(
  ctx: CoreContext,
  format: 'protobuf' | 'json',
  bytes: Buffer,
  countedOperations: ReadonlySet<string>,
): Promise<MappedSpans | Response> {
  let spans: ExportedSpan[];
  try {
    if (format === 'json') {
      const text = bytes.toString('utf8');
      if (exceedsJsonDepth(text, MAX_JSON_DEPTH))
        return problemResponse(400, 'INVALID_INPUT', `The body nests more than ${MAX_JSON_DEPTH} levels deep`);
      spans = decodeJsonRequest(text);
    } else {
      spans = decodeProtobufRequest(bytes);
    }
  } catch (error) {
    if (error instanceof UnreadableRequestError) return problemResponse(400, 'INVALID_INPUT', error.message);
    // A protobuf body can nest attribute values deeper than the stack reading them: unreadable too, never a 500.
    if (error instanceof RangeError) return problemResponse(400, 'INVALID_INPUT', 'The body nests too deeply to read');
    throw error;
  }
  const rules = await withDatabaseDeadline(spanMappingRules(ctx.db, countedOperations));
  return mapSpans(ctx, spans, rules);
}

async function readBody(request: NextRequest): Promise<{ bytes: Buffer } | { response: Response }> {
  const tooLarge = () => ({
    response: problemResponse(
      413,
      'PAYLOAD_TOO_LARGE',
      `Export batches are limited to ${MAX_TRACES_BODY_BYTES / 1024 / 1024} MiB (${MAX_INFLATED_TRACES_BODY_BYTES / 1024 / 1024} MiB uncompressed)`,
    ),
  });
  const raw = await readBodyBytes(request, MAX_TRACES_BODY_BYTES);
  if (!raw) return tooLarge();
  const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return { bytes: raw };
  if (encoding !== 'gzip')
    return { response: problemResponse(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding may be gzip or none') };
  try {
    return { bytes: gunzipSync(raw, { maxOutputLength: MAX_INFLATED_TRACES_BODY_BYTES }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return tooLarge();
    return { response: problemResponse(400, 'INVALID_INPUT', 'The body is not valid gzip') };
  }
}
