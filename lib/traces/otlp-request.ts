import { createRequire } from 'node:module';
import { z } from 'zod';
import { type AttributeValue, attributesOf, type OtlpKeyValue } from './attribute-values';

/** The span kinds by their OTLP JSON names, for exporters that send the name instead of the number. */
const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

/**
 * An OTLP/HTTP traces request (ExportTraceServiceRequest) as Holdfast reads it,
 * from either encoding the specification allows: binary protobuf, decoded by
 * protobufjs with the code generated from the official .proto files (shipped by
 * @opentelemetry/otlp-transformer 0.52, installed as `otlp-proto-root`), or the
 * JSON mapping, checked with zod. Both come out as the same plain spans.
 */
export interface ExportedSpan {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits. */
  spanId: string;
  /** Null for a root span. */
  parentSpanId: string | null;
  name: string;
  /** 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNanos: bigint;
  endNanos: bigint;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  attributes: Map<string, AttributeValue>;
  /** The resource's attributes (service.name, ...), shared by the spans of one resource. */
  resource: Map<string, AttributeValue>;
  /** Messages of the span's `exception` events, first first. */
  exceptionMessages: string[];
}

export class UnreadableRequestError extends Error {}

// The generated module is CommonJS; createRequire keeps it out of the bundler's way.
const requireCommonJs = createRequire(import.meta.url);
interface ProtobufMessageType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  fromObject(object: unknown): unknown;
}
interface TraceServiceTypes {
  ExportTraceServiceRequest: ProtobufMessageType;
  ExportTraceServiceResponse: ProtobufMessageType;
}
let traceService: TraceServiceTypes | undefined;
function traceServiceTypes(): TraceServiceTypes {
  traceService ??= requireCommonJs('otlp-proto-root/build/src/generated/root').opentelemetry.proto.collector.trace
    .v1 as TraceServiceTypes;
  return traceService;
}

/** The decoded messages as protobufjs makes them: unset fields are null, 64-bit integers are Longs. */
interface DecodedLong {
  low: number;
  high: number;
}
interface DecodedKeyValue {
  key: string | null;
  value: Record<string, unknown> | null;
}
interface DecodedSpan {
  traceId: Uint8Array | null;
  spanId: Uint8Array | null;
  parentSpanId: Uint8Array | null;
  name: string | null;
  kind: number | null;
  startTimeUnixNano: DecodedLong | number | null;
  endTimeUnixNano: DecodedLong | number | null;
  attributes: DecodedKeyValue[];
  events: { name: string | null; attributes: DecodedKeyValue[] }[];
  status: { code: number | null; message: string | null } | null;
}
interface DecodedRequest {
  resourceSpans: {
    resource: { attributes: DecodedKeyValue[] } | null;
    scopeSpans: { spans: DecodedSpan[] }[];
  }[];
}

/**
 * Decodes a protobuf body: ids come as bytes, times as 64-bit Longs. The decoded messages are read as
 * they are (protobuf's own types already hold every field to its shape), without converting them to
 * plain objects and checking them again as the JSON path must: that took half of a batch's decoding.
 */
export function decodeProtobufRequest(body: Uint8Array): ExportedSpan[] {
  let request: DecodedRequest;
  try {
    request = traceServiceTypes().ExportTraceServiceRequest.decode(body) as DecodedRequest;
  } catch (error) {
    throw new UnreadableRequestError(`not an OTLP protobuf ExportTraceServiceRequest: ${(error as Error).message}`);
  }
  const spans: ExportedSpan[] = [];
  for (const resourceSpans of request.resourceSpans) {
    const resource = attributesOf(resourceSpans.resource?.attributes ?? []);
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        const traceId = hexOfBytes(span.traceId);
        const spanId = hexOfBytes(span.spanId);
        if (!TRACE_ID.test(traceId) || !SPAN_ID.test(spanId))
          throw new UnreadableRequestError('a span has no valid traceId (16 bytes) or spanId (8 bytes)');
        const parent = hexOfBytes(span.parentSpanId);
        spans.push({
          traceId,
          spanId,
          parentSpanId: SPAN_ID.test(parent) && parent !== '0000000000000000' ? parent : null,
          name: span.name ?? '',
          kind: span.kind ?? 0,
          // proto3 leaves a zero out: an unset time is 0 (and such a span is refused as outside the kept days).
          startNanos: unsignedOf(span.startTimeUnixNano),
          endNanos: unsignedOf(span.endTimeUnixNano),
          statusCode: span.status?.code ?? 0,
          statusMessage: span.status?.message ?? '',
          attributes: attributesOf(span.attributes),
          resource,
          exceptionMessages: exceptionMessagesOf(span.events),
        });
      }
    }
  }
  return spans;
}

function hexOfBytes(bytes: Uint8Array | null): string {
  if (!bytes) return '';
  return (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString(
    'hex',
  );
}

function unsignedOf(value: DecodedLong | number | null): bigint {
  if (value === null) return 0n;
  if (typeof value === 'number') return BigInt(value);
  return (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
}

/** Decodes a JSON body: ids come as hex strings, 64-bit times as strings or numbers. */
export function decodeJsonRequest(text: string): ExportedSpan[] {
  let object: unknown;
  try {
    object = JSON.parse(text);
  } catch (error) {
    throw new UnreadableRequestError(`not JSON: ${(error as Error).message}`);
  }
  return spansOf(parseShape(object), (id) => (typeof id === 'string' ? id.toLowerCase() : ''));
}

/** The answer: protobuf or JSON as the request came, with the count of spans not taken and why. */
export function encodeResponse(
  format: 'protobuf' | 'json',
  rejected: { count: number; message: string },
): Uint8Array | string {
  const partialSuccess =
    rejected.count > 0 ? { rejectedSpans: String(rejected.count), errorMessage: rejected.message } : undefined;
  if (format === 'json') return JSON.stringify(partialSuccess ? { partialSuccess } : {});
  const type = traceServiceTypes().ExportTraceServiceResponse;
  return type.encode(type.fromObject(partialSuccess ? { partialSuccess } : {})).finish();
}

const uint64 = z.union([z.string().regex(/^\d{1,20}$/), z.number().int().nonnegative()]).transform(BigInt);
const id = z.unknown();
const keyValues = z.array(z.custom<OtlpKeyValue>((value) => typeof value === 'object' && value !== null)).default([]);
const requestShape = z.object({
  resourceSpans: z
    .array(
      z.object({
        resource: z.object({ attributes: keyValues }).optional(),
        scopeSpans: z
          .array(
            z.object({
              spans: z
                .array(
                  z.object({
                    traceId: id,
                    spanId: id,
                    parentSpanId: id.optional(),
                    name: z.string().default(''),
                    kind: z.union([z.number(), z.string()]).optional(),
                    startTimeUnixNano: uint64,
                    endTimeUnixNano: uint64,
                    attributes: keyValues,
                    status: z.object({ code: z.number().int().default(0), message: z.string().default('') }).optional(),
                    events: z.array(z.object({ name: z.string().default(''), attributes: keyValues })).default([]),
                  }),
                )
                .default([]),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
});

function parseShape(object: unknown): z.output<typeof requestShape> {
  const parsed = requestShape.safeParse(object);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UnreadableRequestError(`not an ExportTraceServiceRequest: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

function spansOf(request: z.output<typeof requestShape>, hexOf: (id: unknown) => string): ExportedSpan[] {
  const spans: ExportedSpan[] = [];
  for (const resourceSpans of request.resourceSpans) {
    const resource = attributesOf(resourceSpans.resource?.attributes ?? []);
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        const traceId = hexOf(span.traceId);
        const spanId = hexOf(span.spanId);
        if (!TRACE_ID.test(traceId) || !SPAN_ID.test(spanId))
          throw new UnreadableRequestError('a span has no valid traceId (16 bytes) or spanId (8 bytes)');
        const parent = span.parentSpanId === undefined ? '' : hexOf(span.parentSpanId);
        spans.push({
          traceId,
          spanId,
          parentSpanId: SPAN_ID.test(parent) && parent !== '0000000000000000' ? parent : null,
          name: span.name,
          kind: typeof span.kind === 'number' ? span.kind : (SPAN_KINDS[span.kind ?? ''] ?? 0),
          startNanos: span.startTimeUnixNano,
          endNanos: span.endTimeUnixNano,
          statusCode: span.status?.code ?? 0,
          statusMessage: span.status?.message ?? '',
          attributes: attributesOf(span.attributes),
          resource,
          exceptionMessages: exceptionMessagesOf(span.events),
        });
      }
    }
  }
  return spans;
}

/** The messages of a span's `exception` events, first first. */
function exceptionMessagesOf(events: readonly { name?: string | null; attributes: readonly OtlpKeyValue[] }[]) {
  const messages: string[] = [];
  for (const event of events) {
    if (event.name !== 'exception') continue;
    const message = attributesOf(event.attributes).get('exception.message');
    if (typeof message === 'string') messages.push(message);
  }
  return messages;
}
